/**
 * The logging output flags as k8s.io/component-base `logs/api/v1` takes them: split stream and info buffer size
 * per format, gated by `LoggingAlphaOptions` with upstream's messages; sizes as Kubernetes quantities.
 */
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig } from '../src/options/config.js';
import { parseByteQuantity } from '../src/options/quantity.js';
import { BUILT_IN_KNOWN } from './known-names.js';

const build = (argv: string[]) =>
  buildConfig(parseFlags(['--cloud-provider=x', ...argv], cloudControllerManagerFlagSets()), BUILT_IN_KNOWN);

describe('logging output flags', () => {
  it('default to one unbuffered stream', () => {
    expect(build([])).toMatchObject({ splitStream: false, infoBufferSize: 0, flushFrequencyMs: 5000 });
  });

  it('need the LoggingAlphaOptions gate, as upstream', () => {
    expect(() => build(['--log-text-split-stream', '--log-text-info-buffer-size=1Ki'])).toThrow(
      /options\.text\.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled[\s\S]*options\.text\.infoBufferSize: Forbidden/,
    );
    expect(() => build(['--log-json-split-stream'])).toThrow(/options\.json\.splitStream: Forbidden/);
  });

  it('apply the options of the chosen format', () => {
    const gate = '--feature-gates=LoggingAlphaOptions=true';
    expect(build([gate, '--log-text-split-stream', '--log-text-info-buffer-size=2Ki'])).toMatchObject({
      splitStream: true,
      infoBufferSize: 2048,
    });
    // The JSON options do nothing in text format, and the reverse.
    expect(build([gate, '--log-json-split-stream', '--log-json-info-buffer-size=3M'])).toMatchObject({
      splitStream: false,
      infoBufferSize: 0,
    });
    expect(
      build([gate, '--logging-format=json', '--log-json-split-stream', '--log-json-info-buffer-size=3M']),
    ).toMatchObject({ splitStream: true, infoBufferSize: 3_000_000 });
  });

  it('reject a size that is not a quantity with upstream messages', () => {
    expect(() => build(['--log-text-info-buffer-size=1x'])).toThrow(
      /invalid argument "1x" for "--log-text-info-buffer-size" flag: quantities must match the regular expression/,
    );
    expect(() => build(['--log-text-info-buffer-size=1K'])).toThrow(/unable to parse quantity's suffix/);
  });

  it('parses byte quantities', () => {
    expect([512, 1000, 2048, 5 * 2 ** 20, 6 * 2 ** 30].map(String)).toEqual(
      ['512', '1k', '2Ki', '5Mi', '6Gi'].map((q) => String(parseByteQuantity(q))),
    );
    expect(parseByteQuantity('1.5Ki')).toBe(1536);
  });

  it('accepts --disable-http2-serving (the secure port serves HTTP/1.1 only)', () => {
    expect(() => build(['--disable-http2-serving'])).not.toThrow();
  });
});
