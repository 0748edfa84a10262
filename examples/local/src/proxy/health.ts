/**
 * Active health checks of load-balancer backends, of two kinds:
 * - TCP connect to a backend (node address + node port), for `externalTrafficPolicy: Cluster`;
 * - HTTP `GET /healthz` on the node's `healthCheckNodePort`, for `externalTrafficPolicy: Local`: kube-proxy
 *   answers 200 when the node has a ready endpoint of the Service and 503 when it has none
 *   (`k8s.io/kubernetes pkg/proxy/healthcheck/service_health.go`, `hcHandler.ServeHTTP`), so only nodes with
 *   a ready endpoint receive traffic, as on a cloud load balancer.
 * A target is marked unhealthy after `unhealthyThreshold` consecutive failed checks (default 2) and healthy
 * again after `healthyThreshold` consecutive successes (default 1). New TCP targets start healthy; new HTTP
 * targets start unhealthy until a check passes (a node without an endpoint must not get traffic meanwhile).
 * New targets are checked at once. Checks run every `intervalMs`, one round at a time (a slow round delays
 * the next).
 */
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { createLogger, type Logger } from '@ccm-kit/runtime';

/** A backend: a node address and a node port. */
export interface Backend {
  readonly host: string;
  readonly port: number;
}

/** A health-check target: TCP connect to `host:port`, or HTTP `GET http://host:port<path>` when `path` is set. */
export interface HealthTarget extends Backend {
  readonly path?: string;
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

/** GETs `http://host:port<path>`; resolves on status 200, rejects on another status, an error or after `timeoutMs`. */
export function httpProbe(target: HealthTarget, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpGet(
      {
        host: target.host,
        port: target.port,
        path: target.path ?? '/healthz',
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume(); // the body (kube-proxy's JSON with localEndpoints) is not needed: the status says it
        if (res.statusCode === 200) resolve();
        else reject(new Error(`HTTP ${res.statusCode}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer after ${timeoutMs}ms`)));
    req.on('error', reject);
  });
}

/** The probe of a target's kind: {@link httpProbe} when it has a path, else {@link tcpProbe}. */
export function defaultProbe(target: HealthTarget, timeoutMs: number): Promise<void> {
  return target.path === undefined ? tcpProbe(target, timeoutMs) : httpProbe(target, timeoutMs);
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
  /** The probe (default {@link defaultProbe}); tests inject one. */
  probe?: (target: HealthTarget, timeoutMs: number) => Promise<void>;
  /** Where health changes are logged (default logger `local-proxy`). */
  logger?: Logger;
}

interface TargetState {
  backend: HealthTarget;
  healthy: boolean;
  /** Set by the first check of the target. */
  checked: Promise<void> | undefined;
  failures: number;
  successes: number;
}

export class HealthChecker {
  readonly #targets = new Map<string, TargetState>();
  #intervalMs: number;
  #timeoutMs: number | undefined;
  readonly #unhealthyThreshold: number;
  readonly #healthyThreshold: number;
  readonly #probe: (target: HealthTarget, timeoutMs: number) => Promise<void>;
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
    this.#probe = options.probe ?? defaultProbe;
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

  /**
   * Replaces the checked targets: removed ones are forgotten; new ones start healthy (TCP) or unhealthy
   * (HTTP) and are checked now when the checker runs.
   */
  setTargets(targets: readonly HealthTarget[]): void {
    const keys = new Set(targets.map(backendKey));
    for (const key of this.#targets.keys()) if (!keys.has(key)) this.#targets.delete(key);
    for (const backend of targets) {
      const key = backendKey(backend);
      if (this.#targets.has(key)) continue;
      const healthy = backend.path === undefined;
      const state: TargetState = { backend, healthy, checked: undefined, failures: 0, successes: 0 };
      this.#targets.set(key, state);
      if (this.#running) state.checked = this.#check(key, state);
    }
  }

  /** Resolves when every current target has been checked at least once (checking those never checked now). */
  firstChecks(): Promise<void> {
    return Promise.all([...this.#targets].map(([key, state]) => (state.checked ??= this.#check(key, state)))).then(
      () => undefined,
    );
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
    this.#round ??= Promise.all(
      [...this.#targets].map(([key, state]) => {
        const check = this.#check(key, state);
        state.checked ??= check;
        return check;
      }),
    )
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
