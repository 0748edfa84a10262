/**
 * Where a process's CPU samples went, from Linux `perf` call stacks (`perf script -F ip,sym,dso` of a `perf record
 * -g` profile): each sample counted once, in the category of its leaf-most frame that names one; for Node, up to
 * the first JavaScript frame. V8's own profiler (`--cpu-prof`) counts wall-clock ticks of JavaScript and leaves
 * most of a process's native work (TLS, nghttp2, system calls, V8's compiler) unattributed; perf samples every
 * CPU cycle, so the categories add up to the CPU time. Go frames (named by `go tool addr2line`, marked `(go)`)
 * fall in the same categories where they do the same work, and in `go` otherwise.
 */

/** What a sample's CPU time was spent on. */
export type Category =
  | 'javascript'
  | 'go'
  | 'compile'
  | 'gc'
  | 'json.parse'
  | 'json.stringify'
  | 'protobuf'
  | 'tls'
  | 'http2'
  | 'zlib'
  | 'event loop'
  | 'kernel'
  | 'other native';

/**
 * Frames and their category, tried in this order on each frame (leaf first): V8's and Node's native code, then
 * the Go runtime's and standard library's. `JsonParser` comes before `compile`, whose `Parser` would also match
 * it. Go's allocator (`runtime.mallocgc`) counts with its caller, as V8's inline allocation does.
 */
const CATEGORIES: readonly (readonly [Category, RegExp])[] = [
  [
    'gc',
    /Scavenger|ScavengeJob|MarkCompact|MinorMark|GCTracer|Sweeper|ConcurrentMarking|Heap::CollectGarbage|MemoryAllocator|runtime\.(gcBgMarkWorker|gcDrain|scanobject|greyobject|markroot|scanblock|scanstack|sweepone|bgsweep|bgscavenge|gcStart|gcMarkDone|wbBufFlush|gcAssistAlloc)/,
  ],
  ['json.parse', /JsonParser|encoding\/json\.\(\*decodeState\)|encoding\/json\.Unmarshal|sigs\.k8s\.io\/json/],
  ['json.stringify', /JsonStringifier|encoding\/json\.\(\*encodeState\)|encoding\/json\.Marshal/],
  [
    'protobuf',
    /k8s\.io\/api\/.*\.(Unmarshal|Marshal|MarshalTo|MarshalToSizedBuffer|Size)\b|gogo\/protobuf|google\.golang\.org\/protobuf|serializer\/protobuf/,
  ],
  [
    'compile',
    /Compiler::|Parser|Scanner::|BytecodeGenerator|interpreter::Bytecode|maglev::|compiler::|Deserializer|CodeSerializer|baseline::/,
  ],
  ['tls', /\bssl|SSL_|EVP_|aes|gcm|TLSWrap|crypto::|ossl_|BIO_|sha\d|^crypto\//i],
  ['http2', /nghttp2|http2::|golang\.org\/x\/net\/http2|net\/http\.\(\*?http2|net\/http\.http2/],
  ['zlib', /inflate|deflate|crc32|adler32|compress\/flate|compress\/gzip/],
  ['kernel', /\[kernel\.kallsyms\]/],
  [
    'event loop',
    /\buv_|\buv__|runtime\.(schedule|findRunnable|netpoll|park_m|stopm|notesleep|futex|runqsteal|checkTimers|usleep|osyield|stealWork|epollwait)\b/,
  ],
];

/** A frame of a Go binary, named by `go tool addr2line` (see {@link symbolizeGo}). */
const GO = / \(go\)$/;

/**
 * A JavaScript frame: JIT code named by `--perf-basic-prof` (`JS:…`), JIT code perf cannot name (`[unknown]`),
 * or V8's builtins that run JavaScript (the interpreter, inline caches, `Builtins_…`).
 */
const JAVASCRIPT = /\bJS:|\[unknown\] \((\[unknown\]|\/tmp\/perf-\d+\.map)\)|\bBuiltins_|\bLazyCompile:|\bFunction:/;

/** The category of one sample, its frames given leaf first (`perf script` order). */
export function categorize(frames: readonly string[]): Category {
  let go = false;
  for (const frame of frames) {
    if (JAVASCRIPT.test(frame)) return 'javascript';
    for (const [category, pattern] of CATEGORIES) if (pattern.test(frame)) return category;
    go ||= GO.test(frame);
  }
  return go ? 'go' : 'other native';
}

/** A frame perf could not name in a binary file: `<offset in the file's mapping> [unknown] (<file>)`. */
const UNNAMED_IN_FILE = /^(\s*)([0-9a-f]+) \[unknown\] \((\/[^)]+)\)$/;

/** The offsets perf could not name, per binary file (`perf script` text; offsets in hex, as perf prints them). */
export function unnamedOffsets(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const m = UNNAMED_IN_FILE.exec(line);
    if (!m || m[3]!.startsWith('/tmp/perf-')) continue;
    let set = out.get(m[3]!);
    if (!set) out.set(m[3]!, (set = new Set()));
    set.add(m[2]!);
  }
  return out;
}

/**
 * `text` with the frames of Go binaries named: `names` maps a file to its offsets' function names (from `go tool
 * addr2line`, which reads a stripped binary's pclntab); a named frame becomes `<offset> <function> (go)`.
 */
export function symbolizeGo(text: string, names: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  return text
    .split('\n')
    .map((line) => {
      const m = UNNAMED_IN_FILE.exec(line);
      const name = m && names.get(m[3]!)?.get(m[2]!);
      return name ? `${m[1]}${m[2]} ${name} (go)` : line;
    })
    .join('\n');
}

/**
 * The samples of `perf script` text: blocks separated by blank lines, one frame per indented line
 * (`<address> <symbol> (<dso>)`); a block's unindented header line (when `-F` has more than ip,sym,dso) is skipped.
 * @returns each sample's frames, leaf first, without the address
 */
export function parseSamples(text: string): string[][] {
  const samples: string[][] = [];
  for (const block of text.split(/\n[ \t]*\n/)) {
    const frames = block
      .split('\n')
      .filter((line) => /^\s/.test(line) && line.trim() !== '')
      .map((line) => line.trim().replace(/^[0-9a-f]+ /, ''));
    if (frames.length > 0) samples.push(frames);
  }
  return samples;
}

/** Sample counts per category, and the total. */
export interface Split {
  samples: number;
  byCategory: Map<Category, number>;
}

/** Counts `samples` by {@link categorize}. */
export function split(samples: readonly (readonly string[])[]): Split {
  const byCategory = new Map<Category, number>();
  for (const s of samples) {
    const c = categorize(s);
    byCategory.set(c, (byCategory.get(c) ?? 0) + 1);
  }
  return { samples: samples.length, byCategory };
}

/**
 * A Markdown table: a row per category (most samples first) with each run's share in per cent, a column per
 * run (`runs` in the order given, named by `names`).
 */
export function renderSplit(runs: readonly Split[], names: readonly string[]): string {
  const total = (c: Category) => runs.reduce((a, r) => a + (r.byCategory.get(c) ?? 0) / Math.max(r.samples, 1), 0);
  const categories = [...new Set(runs.flatMap((r) => [...r.byCategory.keys()]))].sort((a, b) => total(b) - total(a));
  const lines = [`| category | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`];
  for (const c of categories) {
    const cells = runs.map((r) => `${((100 * (r.byCategory.get(c) ?? 0)) / Math.max(r.samples, 1)).toFixed(1)} %`);
    lines.push(`| ${c} | ${cells.join(' | ')} |`);
  }
  lines.push(`| samples | ${runs.map((r) => String(r.samples)).join(' | ')} |`);
  return lines.join('\n');
}
