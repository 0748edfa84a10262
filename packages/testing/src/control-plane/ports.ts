/**
 * Free TCP ports on 127.0.0.1, reserved across parallel processes.
 *
 * Follows controller-runtime `pkg/internal/testing/addr/manager.go`: ask the kernel for a free port
 * (listen on port 0, read it, close), then claim it with a lock file `port-<n>` in
 * `$XDG_CACHE_HOME/kubebuilder-envtest` (default `~/.cache/kubebuilder-envtest`), so that Go envtest
 * and other test processes on the machine skip it. A claim older than {@link PORT_CLAIM_TTL_MS} is
 * stale and may be taken over. Here the claim is a file created with `O_EXCL` (envtest uses flock).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** How long a port claim holds: 2 minutes, in milliseconds (envtest's `reservationDuration`). */
export const PORT_CLAIM_TTL_MS = 2 * 60_000;

/** A claimed port. Call {@link PortReservation.refresh} to extend the claim, `release` when done. */
export interface PortReservation {
  readonly port: number;
  /** The lock file holding the claim. */
  readonly lockPath: string;
  /** Renews the claim for another {@link PORT_CLAIM_TTL_MS} (e.g. before restarting a server on it). */
  refresh(): Promise<void>;
  /** Removes the lock file (idempotent). */
  release(): Promise<void>;
}

/** Options of {@link reservePort}. */
export interface ReservePortOptions {
  /** Directory of the lock files. Default: `$XDG_CACHE_HOME/kubebuilder-envtest` or `~/.cache/kubebuilder-envtest`. */
  lockDir?: string;
  /** Attempts before giving up (default 100, as envtest). */
  attempts?: number;
  /** Claim lifetime in ms (default {@link PORT_CLAIM_TTL_MS}). */
  ttlMs?: number;
  /** Source of candidate ports; default asks the kernel (listen on 127.0.0.1:0). For tests. */
  candidate?: () => Promise<number>;
}

/** The directory envtest keeps port claims in. */
export function defaultPortLockDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(cache, 'kubebuilder-envtest');
}

/** Asks the kernel for a currently free port on 127.0.0.1. */
export function kernelFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read the listening port'))));
    });
  });
}

async function createExclusive(path: string): Promise<boolean> {
  try {
    const fh = await fs.open(path, 'wx');
    try {
      await fh.writeFile(`${process.pid}\n`);
    } finally {
      await fh.close();
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Takes over a stale claim. The stale file is first renamed to a unique name: rename is atomic, so
 * of several processes racing for the same stale claim only one moves it. If what was moved turns
 * out to be fresh (another process re-claimed it in between), it is put back and the port is skipped.
 */
async function reclaimStale(path: string, ttlMs: number): Promise<boolean> {
  let st: Awaited<ReturnType<typeof fs.stat>>;
  try {
    st = await fs.stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return createExclusive(path);
    throw err;
  }
  if (Date.now() - st.mtimeMs <= ttlMs) return false;
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const moved = await fs.stat(aside);
  if (Date.now() - moved.mtimeMs <= ttlMs) {
    // Someone re-claimed it between our stat and rename: give it back (link fails if it exists again).
    await fs.link(aside, path).catch(() => undefined);
    await fs.rm(aside, { force: true });
    return false;
  }
  await fs.rm(aside, { force: true });
  return createExclusive(path);
}

/**
 * Finds a free port on 127.0.0.1 and claims it for this process.
 * @throws Error when no port could be claimed after `attempts` tries, or the lock directory is unusable.
 */
export async function reservePort(options: ReservePortOptions = {}): Promise<PortReservation> {
  const lockDir = options.lockDir ?? defaultPortLockDir();
  const attempts = options.attempts ?? 100;
  const ttlMs = options.ttlMs ?? PORT_CLAIM_TTL_MS;
  const candidate = options.candidate ?? kernelFreePort;
  await fs.mkdir(lockDir, { recursive: true });
  for (let i = 0; i < attempts; i++) {
    const port = await candidate();
    const lockPath = join(lockDir, `port-${port}`);
    if ((await createExclusive(lockPath)) || (await reclaimStale(lockPath, ttlMs))) {
      return {
        port,
        lockPath,
        refresh: async () => {
          const now = new Date();
          await fs.utimes(lockPath, now, now).catch(async (err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') throw err;
            await createExclusive(lockPath);
          });
        },
        release: () => fs.rm(lockPath, { force: true }),
      };
    }
  }
  throw new Error(`reservePort: no free port could be claimed in ${lockDir} after ${attempts} attempts`);
}
