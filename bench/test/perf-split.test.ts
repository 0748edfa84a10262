import { describe, expect, it } from 'vitest';
import { categorize, parseSamples, renderSplit, split } from '../perf/split.ts';

const script = `
\t    7f01 v8::internal::JsonParser<unsigned char>::ScanJsonString (/usr/bin/node)
\t    7f02 v8::internal::JsonParser<unsigned char>::Parse (/usr/bin/node)
\t    7f03 Builtins_JsonParse (/usr/bin/node)
\t    7f04 [unknown] ([unknown])

node 12/12 [000] 1.0: cycles:
\t    ffff81 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\t    ffff82 ksys_write ([kernel.kallsyms])
\t    7f05 __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    7f06 uv__write (/usr/bin/node)

\t    7f07 Builtins_LoadIC (/usr/bin/node)
\t    7f08 node::http2::Http2Session::OnStreamRead (/usr/bin/node)
`;

describe('parseSamples', () => {
  it('reads one sample per block, leaf first, without addresses or header lines', () => {
    const samples = parseSamples(script);
    expect(samples).toHaveLength(3);
    expect(samples[0]![0]).toBe('v8::internal::JsonParser<unsigned char>::ScanJsonString (/usr/bin/node)');
    expect(samples[1]).toHaveLength(4);
    expect(samples[1]![0]).toBe('_raw_spin_unlock_irqrestore ([kernel.kallsyms])');
  });
});

describe('categorize', () => {
  it('takes the leaf-most frame that names a category', () => {
    const [json, kernel, js] = parseSamples(script);
    expect(categorize(json!)).toBe('json.parse');
    expect(categorize(kernel!)).toBe('kernel');
    // The HTTP/2 session called into JavaScript: the time is JavaScript's, not nghttp2's.
    expect(categorize(js!)).toBe('javascript');
  });

  it('tells the JSON parser from V8’s source parser, and TLS, compile and GC frames apart', () => {
    expect(categorize(['v8::internal::Parser::ParseFunction (/usr/bin/node)'])).toBe('compile');
    expect(categorize(['v8::internal::Compiler::Compile (/usr/bin/node)'])).toBe('compile');
    expect(categorize(['ossl_aes_gcm_decrypt_avx512 (/usr/bin/node)'])).toBe('tls');
    expect(categorize(['v8::internal::ScavengerCollector::CollectGarbage (/usr/bin/node)'])).toBe('gc');
    expect(categorize(['nghttp2_session_mem_recv2 (/usr/bin/node)'])).toBe('http2');
    expect(categorize(['malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)'])).toBe('other native');
  });
});

describe('renderSplit', () => {
  it('gives each run its share per category, the largest first', () => {
    const a = split(parseSamples(script));
    const b = split([['Builtins_LoadIC (/usr/bin/node)']]);
    const lines = renderSplit([a, b], ['a', 'b']).split('\n');
    expect(lines[0]).toBe('| category | a | b |');
    expect(lines[2]).toBe('| javascript | 33.3 % | 100.0 % |');
    expect(lines).toContain('| kernel | 33.3 % | 0.0 % |');
    expect(lines.at(-1)).toBe('| samples | 3 | 1 |');
  });
});
