/**
 * `ccm-kit dev`: runs the vendor's provider as a cloud-controller-manager against a real local control
 * plane (startControlPlane; or an existing cluster with --kubeconfig), registers kubelet-style Nodes,
 * rebuilds and restarts the CCM when the source changes, and shows the Nodes, LoadBalancer Services and
 * Events live.
 */
import { createWriteStream } from 'node:fs';
import { isIP } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type ControlPlane,
  ensureControlPlaneBinaries,
  type KubeletNode,
  registerKubeletNodes,
  startControlPlane,
} from '@ccm-kit/testing';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { initializedNodes, readClusterState, renderView, servedLoadBalancers } from '../dev/live-view.js';
import { RestartingProcess } from '../dev/restarting-process.js';
import { DEV_CLUSTER_CIDR, devPodCIDRs, devRouteFlags, routeControllerNote } from '../dev/routes.js';
import { readProjectPackage } from '../project-package.js';
import { UsageError } from '../usage-error.js';

export const DEV_USAGE = `ccm-kit dev [options] [-- <more CCM flags>]

  --provider <name>        the registered provider name (default: package.json "ccmKit.provider")
  --entry <file>           the CCM's main, built (default: package.json "ccmKit.entry", else dist/main.js)
  --build <command>        the build command run before each start (default: npm run build, if the script exists)
  --watch <dir>            rebuild and restart on changes here (default src)
  --cloud-config <file>    passed to the CCM as --cloud-config
  --kubeconfig <file>      use this cluster instead of starting a local control plane
  --nodes <n>              kubelet-style Nodes to register, named dev-node-1 … dev-node-<n> (default 3; 0 with
                           --kubeconfig)
  --zones <a,b,…>          topology.kubernetes.io/zone labels, round robin (default: none)
  --addresses <ip,ip,…>    the Nodes' InternalIPs (default 10.0.0.11, 10.0.0.12, …)
  --provided-node-ip       set the alpha.kubernetes.io/provided-node-ip annotation (kubelet --node-ip) instead
  --cluster-cidr <cidr>    the Pod network (default ${DEV_CLUSTER_CIDR}): the CCM runs with --configure-cloud-routes=true
                           and it, and dev-node-N gets the Pod CIDR <N-th /24 of it>; with --kubeconfig routes are
                           off unless you pass the CCM flags yourself (after --)
  --service                create the LoadBalancer Service default/dev-lb
  --exit-when-ready        exit 0 once every Node is initialized and every LoadBalancer Service has an ingress
  --duration <seconds>     stop after this long (exit 1 if --exit-when-ready was not met)
  --keep-state             keep $CCM_KIT_DEV_STATE_DIR from the last session (default: emptied at start)
The CCM's log goes to ccm-dev.log; after each restart "[ccm-kit dev] the CCM is running again" is printed. The CCM restarts on every change, so a cloud it keeps in its own memory (an
in-process fake) starts empty each time: keep such state in the directory $CCM_KIT_DEV_STATE_DIR
(.ccm-kit-dev/state, kept across restarts), or run the fake as a process of its own.`;

/** The directory, under the project, where a dev fake keeps its state across restarts ($CCM_KIT_DEV_STATE_DIR). */
export const DEV_STATE_DIR = join('.ccm-kit-dev', 'state');

interface DevOptions {
  provider: string;
  entry: string;
  build?: string;
  watchDir: string;
  cloudConfig?: string;
  kubeconfig?: string;
  nodes: number;
  zones: string[];
  addresses: string[];
  providedNodeIP: boolean;
  clusterCIDR: string;
  /** The dev Nodes' Pod CIDRs (none with --kubeconfig). */
  podCIDRs: string[];
  service: boolean;
  exitWhenReady: boolean;
  durationMs?: number;
  ccmFlags: string[];
  /** Absolute path of the state directory handed to the CCM. */
  stateDir: string;
  keepState: boolean;
}

/** Parses the flags, with defaults from the project's package.json. @throws UsageError naming the flag. */
export async function devOptions(argv: string[], cwd: string): Promise<DevOptions> {
  const { values: o, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      entry: { type: 'string' },
      build: { type: 'string' },
      watch: { type: 'string', default: 'src' },
      'cloud-config': { type: 'string' },
      kubeconfig: { type: 'string' },
      nodes: { type: 'string' },
      zones: { type: 'string' },
      addresses: { type: 'string' },
      'provided-node-ip': { type: 'boolean', default: false },
      'cluster-cidr': { type: 'string', default: DEV_CLUSTER_CIDR },
      service: { type: 'boolean', default: false },
      'exit-when-ready': { type: 'boolean', default: false },
      duration: { type: 'string' },
      'keep-state': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const pkg = readProjectPackage(cwd);
  const provider = o.provider ?? pkg.ccmKit?.provider;
  if (!provider) throw new UsageError('--provider: not given and package.json has no "ccmKit.provider"');
  const nodes = Number(o.nodes ?? (o.kubeconfig ? 0 : 3));
  if (!Number.isInteger(nodes) || nodes < 0 || nodes > 100)
    throw new UsageError(`--nodes: "${o.nodes}" is not a whole number 0..100`);
  const addresses = o.addresses
    ? o.addresses.split(',').map((a) => a.trim())
    : Array.from({ length: nodes }, (_, i) => `10.0.0.${11 + i}`);
  const bad = addresses.find((a) => !isIP(a));
  if (bad !== undefined) throw new UsageError(`--addresses: "${bad}" is not an IP address`);
  if (addresses.length < nodes) throw new UsageError(`--addresses: ${addresses.length} given for ${nodes} Nodes`);
  let durationMs: number | undefined;
  if (o.duration !== undefined) {
    durationMs = Number(o.duration) * 1000;
    if (!(durationMs > 0)) throw new UsageError(`--duration: "${o.duration}" is not a positive number of seconds`);
  }
  return {
    provider,
    entry: resolve(cwd, o.entry ?? pkg.ccmKit?.entry ?? 'dist/main.js'),
    build: o.build ?? (pkg.scripts?.build ? 'npm run build --silent' : undefined),
    watchDir: resolve(cwd, o.watch),
    cloudConfig: o['cloud-config'] ? resolve(cwd, o['cloud-config']) : undefined,
    kubeconfig: o.kubeconfig ? resolve(cwd, o.kubeconfig) : undefined,
    nodes,
    zones: o.zones
      ? o.zones
          .split(',')
          .map((z) => z.trim())
          .filter(Boolean)
      : [],
    addresses,
    providedNodeIP: o['provided-node-ip'],
    clusterCIDR: o['cluster-cidr'],
    podCIDRs: o.kubeconfig ? [] : devPodCIDRs(o['cluster-cidr'], nodes),
    service: o.service,
    exitWhenReady: o['exit-when-ready'],
    durationMs,
    ccmFlags: positionals,
    stateDir: resolve(cwd, DEV_STATE_DIR),
    keepState: o['keep-state'],
  };
}

/** Runs the command until Ctrl-C, --duration or --exit-when-ready. @returns the exit status. */
export async function devCommand(argv: string[], cwd: string, out: (text: string) => void): Promise<number> {
  const opts = await devOptions(argv, cwd);
  const started = Date.now();
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    let kubeconfigPath = opts.kubeconfig;
    let kc: KubeConfig;
    if (!kubeconfigPath) {
      out('[ccm-kit dev] starting a local control plane (kube-apiserver + etcd) ...');
      const cp: ControlPlane = await startControlPlane({ binaries: await ensureControlPlaneBinaries() });
      cleanups.push(() => cp.stop());
      kubeconfigPath = cp.kubeconfigPath;
      kc = cp.kubeConfig;
      out(`[ccm-kit dev] kube-apiserver at ${cp.server}; kubectl --kubeconfig ${kubeconfigPath}`);
    } else {
      kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
    }
    const core = kc.makeApiClient(CoreV1Api);
    const heartbeat = await registerKubeletNodes(
      core,
      Array.from({ length: opts.nodes }, (_, i): KubeletNode => {
        const ip = opts.addresses[i]!;
        const zone = opts.zones.length ? opts.zones[i % opts.zones.length] : undefined;
        return {
          name: `dev-node-${i + 1}`,
          labels: zone ? { 'topology.kubernetes.io/zone': zone } : undefined,
          ...(opts.providedNodeIP ? { providedNodeIP: ip } : { internalIP: ip }),
          ...(opts.podCIDRs[i] ? { podCIDRs: [opts.podCIDRs[i]] } : {}),
        };
      }),
    );
    const beat = setInterval(() => void heartbeat().catch(() => undefined), 10_000);
    cleanups.push(() => clearInterval(beat));
    if (opts.service) {
      await core
        .createNamespacedService({
          namespace: 'default',
          body: {
            metadata: { name: 'dev-lb' },
            spec: { type: 'LoadBalancer', selector: { app: 'dev-lb' }, ports: [{ port: 80, targetPort: 8080 }] },
          },
        })
        .catch((err: { code?: number }) => {
          if (err.code !== 409) throw err;
        });
    }

    // A fake cloud inside the CCM process forgets everything on each restart; this directory does not.
    if (!opts.keepState) await rm(opts.stateDir, { recursive: true, force: true });
    await mkdir(opts.stateDir, { recursive: true });
    out(
      `[ccm-kit dev] the CCM restarts on every change: state it keeps in memory (an in-process fake cloud) is lost each time; ` +
        `keep it in $CCM_KIT_DEV_STATE_DIR=${opts.stateDir} (kept across restarts${opts.keepState ? ' and sessions' : ''}).`,
    );
    const routes = devRouteFlags(opts);
    out(routes.note);
    const log = createWriteStream(join(cwd, 'ccm-dev.log'));
    cleanups.push(() => new Promise<void>((r) => log.end(r)));
    const ccm = new RestartingProcess({
      cwd,
      env: { ...process.env, CCM_KIT_DEV_STATE_DIR: opts.stateDir },
      build: opts.build,
      watchDir: opts.watchDir,
      command: [
        process.execPath,
        opts.entry,
        `--cloud-provider=${opts.provider}`,
        `--kubeconfig=${kubeconfigPath}`,
        ...(opts.cloudConfig ? [`--cloud-config=${opts.cloudConfig}`] : []),
        // One local instance: no lease to wait for on restart; no serving port to collide with.
        '--leader-elect=false',
        '--secure-port=0',
        ...routes.flags,
        ...opts.ccmFlags,
      ],
      onLine: (line) => {
        log.write(`${line}\n`);
        if (line.startsWith('[ccm-kit dev]')) out(line);
        const note = routeControllerNote(line);
        if (note) out(note);
      },
    });
    cleanups.push(() => ccm.close());
    await ccm.start();
    out(`[ccm-kit dev] the CCM runs (log: ccm-dev.log); watching ${opts.watchDir}. Ctrl-C stops.`);
    return await liveView(core, opts, started, out);
  } finally {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => undefined);
  }
}

/** Redraws the view every second until stopped; resolves with the exit status. */
function liveView(core: CoreV1Api, opts: DevOptions, started: number, out: (text: string) => void): Promise<number> {
  const tty = process.stdout.isTTY;
  let last = '';
  return new Promise((resolveStatus) => {
    const finish = (status: number) => {
      clearInterval(tick);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveStatus(status);
    };
    const onSignal = () => finish(0);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const tick = setInterval(async () => {
      const state = await readClusterState(core).catch(() => undefined);
      if (!state) return;
      const view = renderView(state);
      if (view !== last) out(tty ? `\x1b[2J\x1b[H${view}` : `\n${view}`);
      last = view;
      const ready =
        initializedNodes(state.nodes).length === state.nodes.length &&
        servedLoadBalancers(state.services).length === state.services.length;
      if (opts.exitWhenReady && ready) {
        out(
          `[ccm-kit dev] ready after ${((Date.now() - started) / 1000).toFixed(1)} s: every Node initialized, every LoadBalancer served`,
        );
        finish(0);
      } else if (opts.durationMs !== undefined && Date.now() - started > opts.durationMs) {
        finish(opts.exitWhenReady ? 1 : 0);
      }
    }, 1000);
  });
}
