/**
 * Readiness polling for the control-plane processes: etcd's `GET /health` over HTTP and
 * kube-apiserver's `GET /healthz` over HTTPS, every 100 ms, as envtest does.
 */
import http from 'node:http';
import https from 'node:https';
import type { ManagedProcess } from './managed-process.js';

/** Result of one HTTP GET. */
export interface HttpResult {
  status: number;
  body: string;
}

/** TLS material for an HTTPS request. */
export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
}

/**
 * One GET with a per-request timeout (`timeoutMs`). Rejects on connection errors and timeouts.
 */
export function httpGet(url: string, tls: TlsOptions = {}, timeoutMs = 2_000): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.get(u, { ...tls, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** The error thrown when a process does not become ready. */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
}

/** Options of {@link waitUntil}. */
export interface WaitOptions {
  /** What is awaited, for messages (e.g. `etcd /health`). */
  what: string;
  /** Absolute deadline (epoch ms). */
  deadline: number;
  /** Poll interval in ms (default 100). */
  intervalMs?: number;
  /** Fail fast when this process exits while waiting. */
  process?: ManagedProcess;
}

/**
 * Calls `check` every `intervalMs` until it returns true.
 * @throws NotReadyError when the deadline passes or the watched process exits; the message has the
 *   last check error and the process's recent output.
 */
export async function waitUntil(check: () => Promise<boolean>, opts: WaitOptions): Promise<void> {
  const interval = opts.intervalMs ?? 100;
  let lastError: string;
  for (;;) {
    if (opts.process && !opts.process.running) {
      // Let the last output arrive (bounded: a grandchild could hold the pipes open).
      await Promise.race([opts.process.exited, new Promise((r) => setTimeout(r, 1_000))]);
      throw new NotReadyError(`${opts.what}: the process stopped before it was ready. ${opts.process.describe()}`);
    }
    try {
      if (await check()) return;
      lastError = '';
    } catch (err) {
      lastError = (err as Error).message;
    }
    if (Date.now() >= opts.deadline) {
      const detail = opts.process ? ` ${opts.process.describe()}` : '';
      throw new NotReadyError(
        `${opts.what}: not ready in time${lastError ? ` (last error: ${lastError})` : ''}.${detail}`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, opts.deadline - Date.now()))));
  }
}
