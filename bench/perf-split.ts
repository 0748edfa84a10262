/**
 * Where a CCM's threads spent their CPU, from a Linux `perf` profile (bench/perf/split.ts): JavaScript, V8's
 * compiler, garbage collection, JSON, TLS, HTTP/2 framing, libuv, the kernel. Needs `perf` and the right to read
 * other processes' samples (root, or `kernel.perf_event_paranoid` ≤ 1).
 *
 * Record a whole bench:compare run (every process; the CCM is one of them), without `--perf-basic-prof`: that
 * flag changes V8's flag hash, so the compile cache the image filled is rejected and the profile shows a cold start.
 *
 *   perf record -a -g -F 997 -o /tmp/w1.data -- npm run bench:compare -- --impls=ts --w1=1000:10x1q1000/2000 …
 *   npm run bench:perf-split -- list /tmp/w1.data      # threads by samples: pid/tid, name
 *   npm run bench:perf-split -- main=/tmp/w1.data@<tid> workers=/tmp/w1.data@<tid>,<tid> …
 *
 * `list` shows each process with its busiest threads. ccm-kit's CCM is a `node` process started after the harness's
 * (main thread `MainThread`, tid = pid; V8's helpers `V8Worker`); the Go CCM is `upstream-ccm` (select it whole with
 * `@pid:<pid>`).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { parseSamples, renderSplit, split, symbolizeGo, unnamedOffsets } from './perf/split.ts';

/** The virtual address of an ELF64 file's first loaded segment (where perf's offsets count from), or null. */
function elfBase(file: string): bigint | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    // Only the file header and the program headers are read, not the (tens of MiB of) binary.
    const head = (at: number, length: number) => {
      const b = Buffer.alloc(length);
      return b.subarray(0, readSync(fd, b, 0, length, at));
    };
    const h = head(0, 64);
    if (h.length < 64 || h.readUInt32BE(0) !== 0x7f454c46 || h[4] !== 2) return null;
    const phentsize = h.readUInt16LE(0x36);
    const phnum = h.readUInt16LE(0x38);
    const ph = head(Number(h.readBigUInt64LE(0x20)), phentsize * phnum);
    for (let i = 0; (i + 1) * phentsize <= ph.length; i++) {
      const at = i * phentsize;
      if (ph.readUInt32LE(at) === 1 && ph.readBigUInt64LE(at + 8) === 0n) return ph.readBigUInt64LE(at + 16);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Go function names of the offsets perf could not name in each file, by `go tool addr2line` (files that are not
 * Go binaries, or without `go` on PATH, get none).
 */
function goNames(offsets: Map<string, Set<string>>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [file, set] of offsets) {
    const base = elfBase(file);
    if (base === null) continue;
    const list = [...set];
    const input = list.map((o) => `0x${(base + BigInt(`0x${o}`)).toString(16)}`).join('\n');
    const r = spawnSync('go', ['tool', 'addr2line', file], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) continue;
    // Two lines per address: the function, then file:line.
    const lines = r.stdout.split('\n');
    const names = new Map<string, string>();
    list.forEach((o, i) => {
      const fn = lines[2 * i];
      if (fn && fn !== '?') names.set(o, fn);
    });
    if (names.size > 0) out.set(file, names);
  }
  return out;
}

function perfScript(data: string, fields: string, select?: { by: '--tid' | '--pid'; ids: string }): string {
  const args = ['script', '-i', data, '-F', fields, ...(select ? [select.by, select.ids] : [])];
  const r = spawnSync('perf', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`perf ${args.join(' ')}: ${r.error.message} (is perf installed?)`);
  if (r.status !== 0) throw new Error(`perf ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

const [first, ...rest] = process.argv.slice(2);
if (first === 'list' && rest[0]) {
  const threads = new Map<string, number>();
  const processes = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const line of perfScript(rest[0], 'pid,tid,comm').split('\n')) {
    const m = /^\s*(.*?)\s+(\d+)\/(\d+)\s*$/.exec(line);
    if (!m || m[2] === '0') continue;
    add(threads, `${m[2]}/${m[3]} ${m[1]}`);
    add(processes, m[2]!);
  }
  // A process's name is its main thread's (tid = pid); Go names every thread after the binary.
  const nameOf = (pid: string) =>
    [...threads]
      .filter(([k]) => k.startsWith(`${pid}/${pid} `))
      .sort((a, b) => b[1] - a[1])[0]?.[0]
      .split(' ')
      .slice(1)
      .join(' ') ?? '?';
  console.log('| pid, process | samples | its busiest threads (tid name: samples) |\n|---|---|---|');
  for (const [pid, n] of [...processes].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    const top = [...threads]
      .filter(([k]) => k.startsWith(`${pid}/`))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, c]) => `${k.slice(pid.length + 1)}: ${c}`);
    console.log(`| ${pid} ${nameOf(pid)} | ${n} | ${top.join(', ')} |`);
  }
} else if (first) {
  const columns = [first, ...rest].map((arg) => {
    const m = /^([^=]+)=(.+)@(pid:)?([\d,]+)$/.exec(arg);
    if (!m)
      throw new Error(`${arg}: expected <name>=<perf.data>@<tid>[,<tid>…] or <name>=<perf.data>@pid:<pid>[,<pid>…]`);
    return { name: m[1]!, data: m[2]!, select: { by: m[3] ? ('--pid' as const) : ('--tid' as const), ids: m[4]! } };
  });
  const runs = columns.map((c) => {
    const text = perfScript(c.data, 'ip,sym,dso', c.select);
    return split(parseSamples(symbolizeGo(text, goNames(unnamedOffsets(text)))));
  });
  console.log(
    renderSplit(
      runs,
      columns.map((c) => c.name),
    ),
  );
} else {
  console.error('usage: npm run bench:perf-split -- list <perf.data> | <name>=<perf.data>@[pid:]<id>[,<id>…] …');
  process.exit(2);
}
