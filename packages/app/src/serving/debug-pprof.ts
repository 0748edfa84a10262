/**
 * `/debug/pprof/profile?seconds=N` and `/debug/pprof/heap` (served with `--profiling`, the default, behind the
 * same authorization as /metrics): the paths upstream serves Go's net/http/pprof on, answering with what
 * Node.js produces through `node:inspector` — a V8 CPU profile (`.cpuprofile` JSON) sampled for N seconds, and a
 * heap snapshot (`.heapsnapshot` JSON); Chrome DevTools and VS Code open both. As net/http/pprof `Profile`,
 * a missing or invalid `seconds` means 30, and a second CPU profile while one runs answers 500. Decision 0009.
 */
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RouteHandler, RouteResponse } from './secure-server.js';

const DEFAULT_SECONDS = 30;
let profiling = false;

const plain = (status: number, text: string): RouteResponse => ({
  status,
  body: `${text}\n`,
  contentType: 'text/plain',
});

/** The handler of `/debug/pprof/profile`: a CPU profile of `seconds` (default 30) seconds. */
export const debugPprofProfile: RouteHandler = async (_req, query) => {
  const n = Number.parseInt(query.get('seconds') ?? '', 10);
  const seconds = Number.isFinite(n) && n > 0 ? n : DEFAULT_SECONDS;
  if (profiling) return plain(500, 'Could not enable CPU profiling: cpu profiling already in use');
  profiling = true;
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await sleep(seconds * 1000);
    const { profile } = await session.post('Profiler.stop');
    return { status: 200, contentType: 'application/json', body: JSON.stringify(profile) };
  } finally {
    session.disconnect();
    profiling = false;
  }
};

/** The handler of `/debug/pprof/heap`: a heap snapshot of the process. */
export const debugPprofHeap: RouteHandler = async () => {
  const session = new Session();
  session.connect();
  const chunks: string[] = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
  try {
    await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    return { status: 200, contentType: 'application/json', body: chunks.join('') };
  } finally {
    session.disconnect();
  }
};
