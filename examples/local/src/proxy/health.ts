/**
 * Active TCP-connect health checks of load-balancer backends (node address + node port).
 * A backend is marked unhealthy after `unhealthyThreshold` consecutive failed checks (default 2) and healthy
 * again after `healthyThreshold` consecutive successes (default 1). New backends start healthy and are
 * checked at once. Checks run every `intervalMs`, one round at a time (a slow round delays the next).
 */
import { connect } from 'node:net';
import { createLogger, type Logger } from '@ccm-kit/runtime';

/** A backend: a node address and a node port. */
export interface Backend {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, with IPv6 hosts in brackets. */
export function backendKey(b: Backend): string {
  return b.host.includes(':') ? `[${b.host}]:${b.port}` : `${b.host}:${b.port}`;
}

/** Tries a TCP connection; resolves when connected, rejects on error or after `timeoutMs`. */
export function tcpProbe(backend: Backend, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: backend.host, port: backend.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect timeout after ${timeoutMs}ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/** Options of {@link HealthChecker}. Durations in milliseconds. */
export interface HealthCheckerOptions {
  /** Period between rounds (≥ 1). */
  intervalMs: number;
  /** Timeout of one check (default `min(intervalMs, 2000)`). */
  timeoutMs?: number;
  /** Consecutive failures that mark a backend unhealthy (default 2). */
  unhealthyThreshold?: number;
  /** Consecutive successes that mark a backend healthy (default 1). */
  healthyThreshold?: number;
  /** The probe (default {@link tcpProbe}); tests inject one. */
  probe?: (backend: Backend, timeoutMs: number) => Promise<void>;
  /** Where health changes are logged (default logger `local-proxy`). */
  logger?: Logger;
}

interface TargetState {
  backend: Backend;
  healthy: boolean;
  failures: number;
  successes: number;
}

export class HealthChecker {
  readonly #targets = new Map<string, TargetState>();
  #intervalMs: number;
  #timeoutMs: number | undefined;
  readonly #unhealthyThreshold: number;
  readonly #healthyThreshold: number;
  readonly #probe: (backend: Backend, timeoutMs: number) => Promise<void>;
  readonly #logger: Logger;
  readonly #listeners = new Set<(key: string, healthy: boolean) => void>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #round: Promise<void> | undefined;

  /** @throws RangeError when a number is out of range. */
  constructor(options: HealthCheckerOptions) {
    this.#intervalMs = positive(options.intervalMs, 'intervalMs');
    this.#timeoutMs = options.timeoutMs === undefined ? undefined : positive(options.timeoutMs, 'timeoutMs');
    this.#unhealthyThreshold = positive(options.unhealthyThreshold ?? 2, 'unhealthyThreshold');
    this.#healthyThreshold = positive(options.healthyThreshold ?? 1, 'healthyThreshold');
    this.#probe = options.probe ?? tcpProbe;
    this.#logger = options.logger ?? createLogger('local-proxy');
  }

  /** The check period in ms. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** Changes the check period; the next round is scheduled with the new period. */
  setIntervalMs(ms: number): void {
    this.#intervalMs = positive(ms, 'intervalMs');
  }

  /** Replaces the checked backends: removed ones are forgotten, new ones start healthy and are checked now. */
  setTargets(backends: readonly Backend[]): void {
    const keys = new Set(backends.map(backendKey));
    for (const key of this.#targets.keys()) if (!keys.has(key)) this.#targets.delete(key);
    for (const backend of backends) {
      const key = backendKey(backend);
      if (this.#targets.has(key)) continue;
      const state: TargetState = { backend, healthy: true, failures: 0, successes: 0 };
      this.#targets.set(key, state);
      if (this.#running) void this.#check(key, state);
    }
  }

  /** True when `key` (see {@link backendKey}) is healthy; unknown backends count as healthy. */
  isHealthy(key: string): boolean {
    return this.#targets.get(key)?.healthy ?? true;
  }

  /** The health of every backend. */
  snapshot(): Record<string, boolean> {
    return Object.fromEntries([...this.#targets].map(([k, s]) => [k, s.healthy]));
  }

  /** Calls `listener(key, healthy)` whenever a backend changes state; returns a remover. */
  onChange(listener: (key: string, healthy: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the rounds (the first at once). Idempotent. Timers do not keep the process alive. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops the rounds. Idempotent. */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
  }

  /** Runs one round now and resolves when every check of it has finished. */
  checkNow(): Promise<void> {
    this.#round ??= Promise.all([...this.#targets].map(([key, state]) => this.#check(key, state)))
      .then(() => undefined)
      .finally(() => {
        this.#round = undefined;
      });
    return this.#round;
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void this.checkNow().finally(() => {
        if (this.#running) this.#schedule(this.#intervalMs);
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #check(key: string, state: TargetState): Promise<void> {
    const timeoutMs = this.#timeoutMs ?? Math.min(this.#intervalMs, 2_000);
    let ok: boolean;
    let error: unknown;
    try {
      await this.#probe(state.backend, timeoutMs);
      ok = true;
    } catch (err) {
      ok = false;
      error = err;
    }
    if (this.#targets.get(key) !== state) return; // removed (or replaced) meanwhile
    if (ok) {
      state.failures = 0;
      state.successes++;
      if (!state.healthy && state.successes >= this.#healthyThreshold) this.#set(key, state, true);
    } else {
      state.successes = 0;
      state.failures++;
      if (state.healthy && state.failures >= this.#unhealthyThreshold) this.#set(key, state, false, error);
    }
  }

  #set(key: string, state: TargetState, healthy: boolean, error?: unknown): void {
    state.healthy = healthy;
    if (healthy) this.#logger.info('Backend is healthy', { backend: key });
    else this.#logger.warn('Backend is unhealthy', { backend: key, reason: (error as Error)?.message });
    for (const listener of this.#listeners) listener(key, healthy);
  }
}

function positive(n: number, name: string): number {
  if (!(Number.isFinite(n) && n > 0)) throw new RangeError(`${name} must be a positive number, got ${n}`);
  return n;
}
