/**
 * `startControlPlane()`: a real etcd + kube-apiserver for tests, the TypeScript counterpart of
 * controller-runtime's envtest (`pkg/envtest/server.go`, `pkg/internal/testing/controlplane/plane.go`).
 *
 * Start order is etcd, kube-apiserver, then the `default` namespace check; the whole start is retried
 * (up to 3 attempts) with fresh ports when a port turns out to be taken. The returned handle can stop
 * and restart kube-apiserver and etcd in place (same ports, same data) to test reliability.
 */
import { promises as fs, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TinyCA } from '@ccm-kit/runtime/internal';
import type { KubeConfig } from '@kubernetes/client-node';
import { API_SERVER_FILES, type ApiServerConfig, startApiServer } from './apiserver.js';
import { durationFromEnv } from './duration.js';
import { type ControlPlaneBinaries, ensureControlPlaneBinaries } from './ensure-binaries.js';
import { type EtcdConfig, startEtcd } from './etcd.js';
import { type SyncKillable, trackForExit, untrackForExit } from './exit-cleanup.js';
import type { FlagOverrides } from './flags.js';
import { httpGet, NotReadyError, waitUntil } from './health.js';
import { type KubeconfigSpec, kubeConfigFor, writeKubeconfig } from './kubeconfig.js';
import type { ManagedProcess } from './managed-process.js';
import { type PortReservation, reservePort } from './ports.js';

/** Default start timeout: 60 s, in ms (envtest's 20 s is tight on 2 cores; upstream `controller-runtime pkg/envtest`). */
export const DEFAULT_START_TIMEOUT_MS = 60_000;
/** Default stop timeout before SIGKILL: 20 s, in ms (envtest's default). */
export const DEFAULT_STOP_TIMEOUT_MS = 20_000;
/** Start attempts when a port collision is detected. */
export const START_ATTEMPTS = 3;

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Binaries to use; default: {@link ensureControlPlaneBinaries} (envtest lookup order). */
  binaries?: ControlPlaneBinaries;
  /** When the binaries are missing, build them with tools/envtest (slow, needs Go). Default false. */
  build?: boolean;
  /**
   * The Kubernetes version to run when `binaries` is not given: a minor (`1.33`, its newest release found) or a
   * release (`1.33.13`). Default `$CCM_KIT_K8S_VERSION`; unset: the envtest lookup order (binaries.ts). Built by
   * `bash tools/envtest/build.sh <minor>` (docs/compatibility.md lists the pinned ones).
   */
  kubernetesVersion?: string;
  /** Time for the whole start (ms). Default `$KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` or 60 000. */
  startTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when stopping (ms). Default `$KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT` or 20 000. */
  stopTimeoutMs?: number;
  /** Show the children's output on stderr. Default `$KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT === 'true'`. */
  attachOutput?: boolean;
  /** Extra or replaced kube-apiserver flags, e.g. `{ 'feature-gates': 'X=true' }`; `null` removes a default. */
  apiServerFlags?: FlagOverrides;
  /** Extra or replaced etcd flags. */
  etcdFlags?: FlagOverrides;
  /** Parent of the control plane's temporary directory (default `os.tmpdir()`). */
  tmpDir?: string;
}

/** A user of the control plane with a client certificate. */
export interface ControlPlaneUser {
  /** The user name (the certificate's common name). */
  readonly name: string;
  /** The user's groups (the certificate's organizations), for example `system:masters`. */
  readonly groups: readonly string[];
  /** client-node KubeConfig for this user. */
  readonly kubeConfig: KubeConfig;
  /** The same as a kubeconfig file (removed by `stop()`). */
  readonly kubeconfigPath: string;
}

/** Options of {@link ControlPlane.stopApiServer}. */
export interface StopProcessOptions {
  /**
   * Grace period in ms. `0` (the default for kube-apiserver) cuts the process off with SIGKILL, like a
   * crash or a network cut: connections and watches break at once. A positive value sends SIGTERM
   * first (graceful shutdown) and SIGKILL after that long. Note that a gracefully stopping
   * kube-apiserver keeps serving open watches until their clients disconnect (up to its 60 s
   * request timeout), so with informers running a graceful stop usually lasts the whole grace period.
   */
  graceMs?: number;
}

/** Options of {@link ControlPlane.restartApiServer} and {@link ControlPlane.restartEtcd}. */
export interface RestartOptions extends StopProcessOptions {
  /** How long the process stays down between stop and start, in ms (default 0). */
  downMs?: number;
}

/** A running control plane. */
export interface ControlPlane {
  /** client-node KubeConfig of `admin`, in group `system:masters` (never throttled by API priority and fairness). */
  readonly kubeConfig: KubeConfig;
  /** A kubeconfig file of `admin`, for kubectl and child processes. */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** `http://127.0.0.1:<port>` of etcd. */
  readonly etcdUrl: string;
  /** The temporary directory (etcd data, certificates, kubeconfigs); removed by `stop()`. */
  readonly dir: string;
  /** The binaries in use. */
  readonly binaries: ControlPlaneBinaries;
  /** The pids (each also a process-group id) of the running children. */
  pids(): { etcd?: number; apiServer?: number };
  /**
   * Issues a client certificate for a user (CN = name, O = groups) and returns its kubeconfig.
   * Without RBAC bindings such a user is forbidden (403) everywhere but discovery.
   * @throws Error when `name` is empty or the control plane is stopped.
   */
  addUser(name: string, groups?: readonly string[]): Promise<ControlPlaneUser>;
  /** Stops kube-apiserver; by default cuts it off at once (see {@link StopProcessOptions.graceMs}). Idempotent. */
  stopApiServer(opts?: StopProcessOptions): Promise<void>;
  /** Starts kube-apiserver again on the same port and waits for `/healthz`. No-op when it runs. */
  startApiServer(): Promise<void>;
  /**
   * Stops kube-apiserver (default: cut off at once, `graceMs` 0), waits `downMs`, starts it again on the
   * same port with the same data, and waits for `/healthz`.
   */
  restartApiServer(opts?: RestartOptions): Promise<void>;
  /**
   * Stops etcd (default: graceful, `graceMs` = the stop timeout), waits `downMs`, starts it again (same
   * port, same data), then waits for kube-apiserver's `/healthz`.
   */
  restartEtcd(opts?: RestartOptions): Promise<void>;
  /**
   * Stops kube-apiserver, then etcd (each SIGTERM to its process group, SIGKILL after the stop
   * timeout), releases the ports and removes the temporary directory. Idempotent.
   */
  stop(): Promise<void>;
}

/** Start failed; `portCollision` tells whether a retry with new ports may help. */
export class ControlPlaneStartError extends Error {
  /** `ControlPlaneStartError`. */
  override readonly name = 'ControlPlaneStartError';
  /** True when a port was taken between choosing and binding it: a retry with new ports may succeed. */
  readonly portCollision: boolean;
  constructor(message: string, portCollision: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.portCollision = portCollision;
  }
}

function isPortCollision(text: string): boolean {
  return /address already in use|bind: permission denied|EADDRINUSE/i.test(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function nonNegative(v: number, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new Error(`${name} must be a non-negative number of ms, got ${v}`);
  }
  return v;
}

interface Certs {
  servingCa: TinyCA;
  clientCa: TinyCA;
}

interface Settings {
  startTimeoutMs: number;
  stopTimeoutMs: number;
  attachOutput: boolean;
}

class ControlPlaneHandle implements ControlPlane, SyncKillable {
  readonly dir: string;
  readonly binaries: ControlPlaneBinaries;
  readonly #certs: Certs;
  readonly #settings: Settings;
  readonly #ports: PortReservation[];
  readonly #etcdCfg: EtcdConfig;
  readonly #apiCfg: ApiServerConfig;
  #etcd: ManagedProcess | undefined;
  #api: ManagedProcess | undefined;
  #admin!: ControlPlaneUser;
  #userFiles = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #stopping: Promise<void> | undefined;

  constructor(args: {
    dir: string;
    binaries: ControlPlaneBinaries;
    certs: Certs;
    settings: Settings;
    ports: PortReservation[];
    etcdCfg: EtcdConfig;
    apiCfg: ApiServerConfig;
  }) {
    this.dir = args.dir;
    this.binaries = args.binaries;
    this.#certs = args.certs;
    this.#settings = args.settings;
    this.#ports = args.ports;
    this.#etcdCfg = args.etcdCfg;
    this.#apiCfg = args.apiCfg;
  }

  get server(): string {
    return `https://127.0.0.1:${this.#apiCfg.securePort}`;
  }
  get etcdUrl(): string {
    return `http://127.0.0.1:${this.#etcdCfg.clientPort}`;
  }
  get kubeConfig(): KubeConfig {
    return this.#admin.kubeConfig;
  }
  get kubeconfigPath(): string {
    return this.#admin.kubeconfigPath;
  }

  pids(): { etcd?: number; apiServer?: number } {
    const out: { etcd?: number; apiServer?: number } = {};
    if (this.#etcd?.running) out.etcd = this.#etcd.pid;
    if (this.#api?.running) out.apiServer = this.#api.pid;
    return out;
  }

  /** Runs operations one at a time (a restart and a stop must not interleave). */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #assertUsable(what: string): void {
    if (this.#stopping) throw new Error(`${what}: the control plane has been stopped`);
  }

  /** First start: etcd, kube-apiserver, admin user, namespace `default`. */
  async boot(deadline: number): Promise<void> {
    this.#etcd = await startEtcd(this.#etcdCfg, deadline);
    this.#api = await startApiServer(this.#apiCfg, this.#certs.servingCa.certPem, deadline);
    const admin = await this.#issueUser('admin', ['system:masters']);
    this.#admin = admin.user;
    const url = `${this.server}/api/v1/namespaces/default`;
    const tls = { ca: this.#certs.servingCa.certPem, cert: admin.certPem, key: admin.keyPem };
    await waitUntil(async () => (await httpGet(url, tls)).status === 200, {
      what: 'namespace "default"',
      deadline,
      intervalMs: 50,
      process: this.#api,
    });
  }

  async #issueUser(
    name: string,
    groups: readonly string[],
  ): Promise<{ user: ControlPlaneUser; certPem: string; keyPem: string }> {
    const pair = await this.#certs.clientCa.issue({
      commonName: name,
      organizations: groups,
      usage: 'client',
    });
    const spec: KubeconfigSpec = {
      server: this.server,
      caPem: this.#certs.servingCa.certPem,
      certPem: pair.certPem,
      keyPem: pair.keyPem,
      userName: name,
    };
    const file = `${String(this.#userFiles++).padStart(3, '0')}-${name.replace(/[^A-Za-z0-9._-]/g, '_')}.kubeconfig`;
    const kubeconfigPath = join(this.dir, 'kubeconfigs', file);
    await writeKubeconfig(kubeconfigPath, spec);
    const user = { name, groups: [...groups], kubeConfig: kubeConfigFor(spec), kubeconfigPath };
    return { user, certPem: pair.certPem, keyPem: pair.keyPem };
  }

  addUser(name: string, groups: readonly string[] = []): Promise<ControlPlaneUser> {
    if (typeof name !== 'string' || name.trim() === '') {
      return Promise.reject(new Error('addUser: name must be a non-empty string'));
    }
    if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string' || g === '')) {
      return Promise.reject(new Error('addUser: groups must be an array of non-empty strings'));
    }
    try {
      this.#assertUsable('addUser');
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#issueUser(name, groups).then((r) => r.user);
  }

  async #stopApi(graceMs: number): Promise<void> {
    await this.#api?.stop(graceMs);
  }

  async #startApi(): Promise<void> {
    if (this.#api?.running) return;
    await this.#ports[2]!.refresh();
    try {
      this.#api = await startApiServer(
        this.#apiCfg,
        this.#certs.servingCa.certPem,
        Date.now() + this.#settings.startTimeoutMs,
      );
    } catch (err) {
      const msg = (err as Error).message;
      throw new ControlPlaneStartError(
        isPortCollision(msg)
          ? `kube-apiserver could not bind its port ${this.#apiCfg.securePort} again (another process took it). ${msg}`
          : msg,
        isPortCollision(msg),
        { cause: err },
      );
    }
  }

  stopApiServer(opts: StopProcessOptions = {}): Promise<void> {
    let graceMs: number;
    try {
      graceMs = nonNegative(opts.graceMs ?? 0, 'stopApiServer: graceMs');
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#serial(async () => {
      this.#assertUsable('stopApiServer');
      await this.#stopApi(graceMs);
    });
  }

  startApiServer(): Promise<void> {
    return this.#serial(async () => {
      this.#assertUsable('startApiServer');
      await this.#startApi();
    });
  }

  restartApiServer(opts: RestartOptions = {}): Promise<void> {
    let downMs: number;
    let graceMs: number;
    try {
      downMs = nonNegative(opts.downMs ?? 0, 'restartApiServer: downMs');
      graceMs = nonNegative(opts.graceMs ?? 0, 'restartApiServer: graceMs');
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#serial(async () => {
      this.#assertUsable('restartApiServer');
      await this.#stopApi(graceMs);
      await sleep(downMs);
      await this.#startApi();
    });
  }

  restartEtcd(opts: RestartOptions = {}): Promise<void> {
    let downMs: number;
    let graceMs: number;
    try {
      downMs = nonNegative(opts.downMs ?? 0, 'restartEtcd: downMs');
      graceMs = nonNegative(opts.graceMs ?? this.#settings.stopTimeoutMs, 'restartEtcd: graceMs');
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#serial(async () => {
      this.#assertUsable('restartEtcd');
      await this.#etcd?.stop(graceMs);
      await sleep(downMs);
      await Promise.all([this.#ports[0]!.refresh(), this.#ports[1]!.refresh()]);
      const deadline = Date.now() + this.#settings.startTimeoutMs;
      this.#etcd = await startEtcd(this.#etcdCfg, deadline);
      if (this.#api?.running) {
        const url = `${this.server}/healthz`;
        await waitUntil(async () => (await httpGet(url, { ca: this.#certs.servingCa.certPem })).status === 200, {
          what: `kube-apiserver ${url} after the etcd restart`,
          deadline,
          process: this.#api,
        });
      }
    });
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#serial(async () => {
      try {
        await this.#api?.stop(this.#settings.stopTimeoutMs);
        await this.#etcd?.stop(this.#settings.stopTimeoutMs);
      } finally {
        untrackForExit(this);
        await Promise.all(this.#ports.map((p) => p.release()));
        await fs.rm(this.dir, { recursive: true, force: true });
      }
    });
    return this.#stopping;
  }

  /** Synchronous last-resort cleanup for the process 'exit' event. */
  killNowSync(): void {
    this.#api?.killNow();
    this.#etcd?.killNow();
    for (const p of this.#ports) rmSync(p.lockPath, { force: true });
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Stops the children and releases the ports of a failed start attempt (keeps the directory). */
  async abandon(): Promise<void> {
    await this.#api?.stop(5_000);
    await this.#etcd?.stop(5_000);
    await Promise.all(this.#ports.map((p) => p.release()));
  }

  /** Registers for the exit and signal hooks (exit-cleanup.ts). */
  track(): void {
    trackForExit(this);
  }

  untrack(): void {
    untrackForExit(this);
  }
}

function resolveSettings(options: ControlPlaneOptions): Settings {
  const positive = (v: number | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    if (!Number.isFinite(v) || v <= 0)
      throw new Error(`startControlPlane: ${name} must be a positive number of ms, got ${v}`);
    return v;
  };
  return {
    startTimeoutMs:
      positive(options.startTimeoutMs, 'startTimeoutMs') ??
      durationFromEnv('KUBEBUILDER_CONTROLPLANE_START_TIMEOUT', DEFAULT_START_TIMEOUT_MS),
    stopTimeoutMs:
      positive(options.stopTimeoutMs, 'stopTimeoutMs') ??
      durationFromEnv('KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT', DEFAULT_STOP_TIMEOUT_MS),
    attachOutput: options.attachOutput ?? process.env.KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT === 'true',
  };
}

async function writeCertFiles(certDir: string): Promise<Certs> {
  const [servingCa, saSigner, clientCa] = await Promise.all([TinyCA.create(), TinyCA.create(), TinyCA.create()]);
  const serving = await servingCa.issue({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const f = API_SERVER_FILES;
  const files: [string, string][] = [
    [f.servingCert, serving.certPem],
    [f.servingKey, serving.keyPem],
    [f.saSignerCert, saSigner.certPem],
    [f.saSignerKey, saSigner.keyPem],
    [f.clientCa, clientCa.certPem],
  ];
  await Promise.all(files.map(([name, pem]) => fs.writeFile(join(certDir, name), pem, { mode: 0o600 })));
  return { servingCa, clientCa };
}

/**
 * Starts etcd and kube-apiserver and returns a handle with an admin KubeConfig.
 * Stop it with `stop()`. If the process exits or gets SIGINT/SIGTERM/SIGHUP first, a hook kills the
 * children and removes the directory (exit-cleanup.ts).
 * @throws ControlPlaneBinariesMissingError when the binaries cannot be found (message says how to provide them).
 * @throws ControlPlaneStartError when the control plane does not become ready within the start timeout
 *   (message includes the children's recent output), or ports kept colliding for {@link START_ATTEMPTS} attempts.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const settings = resolveSettings(options);
  const binaries =
    options.binaries ??
    (await ensureControlPlaneBinaries({
      build: options.build ?? false,
      ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}),
    }));
  const dir = await fs.mkdtemp(join(options.tmpDir ?? tmpdir(), 'ccm-kit-envtest-'));
  try {
    const certDir = join(dir, 'certs');
    await Promise.all(['certs', 'kubeconfigs'].map((d) => fs.mkdir(join(dir, d), { mode: 0o700 })));
    const certs = await writeCertFiles(certDir);
    for (let attempt = 1; ; attempt++) {
      const dataDir = join(dir, `etcd-data-${attempt}`);
      const ports = [await reservePort(), await reservePort(), await reservePort()] as const;
      const [etcdClient, etcdPeer, apiPort] = ports;
      const etcdCfg: EtcdConfig = {
        binary: binaries.etcd,
        dataDir,
        clientPort: etcdClient.port,
        peerPort: etcdPeer.port,
        flags: options.etcdFlags,
        attachOutput: settings.attachOutput,
      };
      const handle = new ControlPlaneHandle({
        dir,
        binaries,
        certs,
        settings,
        ports: [...ports],
        etcdCfg,
        apiCfg: {
          binary: binaries.kubeApiServer,
          certDir,
          securePort: apiPort.port,
          etcdUrl: `http://127.0.0.1:${etcdClient.port}`,
          flags: options.apiServerFlags,
          attachOutput: settings.attachOutput,
        },
      });
      handle.track();
      try {
        await handle.boot(Date.now() + settings.startTimeoutMs);
        return handle;
      } catch (err) {
        await handle.abandon();
        handle.untrack();
        await fs.rm(dataDir, { recursive: true, force: true });
        const msg = (err as Error).message;
        const collision = isPortCollision(msg);
        if (collision && attempt < START_ATTEMPTS) continue;
        if (err instanceof NotReadyError || collision) {
          throw new ControlPlaneStartError(
            `startControlPlane failed (attempt ${attempt} of ${START_ATTEMPTS}, start timeout ${settings.startTimeoutMs} ms): ${msg}`,
            collision,
            { cause: err },
          );
        }
        throw err;
      }
    }
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
}
