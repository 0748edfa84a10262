#!/usr/bin/env node
/**
 * `npm run demo`: the main job on real input, end to end on one machine.
 *
 * 1. starts a real kube-apiserver + etcd (building them with tools/envtest the first time);
 * 2. starts the local example's cloud-controller-manager as a separate process;
 * 3. registers three Nodes as kubelets with `--cloud-provider=external` do (uninitialized taint, no providerID);
 * 4. starts an HTTP backend per Node on its InternalIP and the Service's nodePort (where kube-proxy would listen);
 * 5. creates a LoadBalancer Service and waits for the Nodes to be initialized and the Service's EXTERNAL-IP;
 * 6. sends real HTTP requests through the load balancer and shows which backend answered;
 * 7. deletes the Service and shows the load balancer gone;
 * and cleans everything up on exit or Ctrl-C. Exit status 0 when every step worked.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type ControlPlane,
  ensureControlPlaneBinaries,
  nodeTable,
  registerKubeletNodes,
  serviceTable,
  startControlPlane,
} from '@ccm-kit/testing';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import { type Backend, startBackend } from './backends.js';

const NAMESPACE = 'demo';
const SERVICE = 'hello';
const NODES = [
  { name: 'demo-node-1', ip: '127.0.1.1', zone: 'zone-a', type: 'local.small' },
  { name: 'demo-node-2', ip: '127.0.1.2', zone: 'zone-b', type: 'local.small' },
  { name: 'demo-node-3', ip: '127.0.1.3', zone: 'zone-c', type: 'local.large' },
];
const REQUESTS = 9;
const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

const color = process.stdout.isTTY;
const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);
const green = (s: string) => (color ? `\x1b[32m${s}\x1b[0m` : s);
const step = (n: number, text: string) => console.log(`\n${bold(`[${n}/7]`)} ${text}`);
const ok = (text: string) => console.log(`  ${green('✓')} ${text}`);

/** Everything to undo, in reverse order. */
const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // best effort: keep undoing the rest
      }
    }
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.log(`\n${sig}: cleaning up ...`);
    void cleanup().then(() => process.exit(130));
  });
}

/** Polls `fn` every 250 ms, printing a progress dot every second, until it returns a value. */
async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const start = Date.now();
  let dots = 0;
  process.stdout.write(`  waiting for ${what} `);
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) {
      process.stdout.write(` ${((Date.now() - start) / 1000).toFixed(1)}s\n`);
      return v;
    }
    if (Date.now() - start > timeoutMs) {
      process.stdout.write('\n');
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 250));
    if (++dots % 4 === 0) process.stdout.write('.');
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function httpGet(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', timeout: 3000 }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve(body.trim()));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function startCcm(args: string[], logFile: string): ChildProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

async function main(): Promise<void> {
  console.log(bold('ccm-kit demo: a cloud-controller-manager built with ccm-kit, against a real kube-apiserver'));

  step(1, 'Starting a real control plane (etcd + kube-apiserver)');
  const binaries = await ensureControlPlaneBinaries({
    build: true,
    onProgress: (line) => console.log(`  ${line}`),
  });
  const cp: ControlPlane = await startControlPlane({ binaries });
  cleanups.push(() => cp.stop());
  ok(`kube-apiserver at ${cp.server}`);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);

  step(2, "Starting the local example's cloud-controller-manager as a separate process");
  const dir = await mkdtemp(join(tmpdir(), 'ccm-kit-demo-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const inventory = join(dir, 'inventory.yaml');
  await writeFile(
    inventory,
    `machines:\n${NODES.map(
      (n) =>
        `  - name: ${n.name}\n    providerID: local://${n.name}\n    zone: ${n.zone}\n    region: local\n    instanceType: ${n.type}\n` +
        `    addresses:\n      - { type: InternalIP, address: ${n.ip} }\n      - { type: Hostname, address: ${n.name} }\n`,
    ).join('')}`,
  );
  const cloudConfig = join(dir, 'cloud-config.yaml');
  await writeFile(
    cloudConfig,
    [
      'clusterID: demo',
      `inventory: ${inventory}`,
      'dataPlane: proxy',
      'healthCheckInterval: 1s',
      'pools:',
      '  - name: global',
      '    addresses: [127.0.2.10-127.0.2.50]',
    ].join('\n'),
  );
  const port = await freePort();
  const logFile = join(process.cwd(), 'demo-ccm.log');
  const ccm = startCcm(
    [
      '--cloud-provider=local',
      `--cloud-config=${cloudConfig}`,
      `--kubeconfig=${cp.kubeconfigPath}`,
      '--configure-cloud-routes=false',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--v=2',
    ],
    logFile,
  );
  const ccmExit = new Promise<number | null>((resolve) => ccm.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (ccm.exitCode === null) {
      ccm.kill('SIGTERM');
      await Promise.race([ccmExit, new Promise((r) => setTimeout(r, 10_000))]);
      if (ccm.exitCode === null) ccm.kill('SIGKILL');
    }
  });
  void ccmExit.then((code) => {
    if (!cleaning) console.error(`\n  the cloud-controller-manager exited early (code ${code}); see ${logFile}`);
  });
  ok(`local-cloud-controller-manager pid ${ccm.pid}, logs in ${logFile}`);

  step(3, 'Registering three Nodes the way a kubelet with --cloud-provider=external does');
  await registerKubeletNodes(
    core,
    NODES.map((n) => ({ name: n.name, internalIP: n.ip })),
  );
  const listNodes = async () => (await core.listNode({})).items.filter((n) => n.metadata?.name?.startsWith('demo-'));
  console.log(nodeTable(await listNodes()).replace(/^/gm, '  '));
  const initialized = await waitFor(
    'the cloud-node-controller to initialize the Nodes',
    async () => {
      const nodes = await listNodes();
      const done = (n: V1Node) =>
        n.spec?.providerID && !n.spec.taints?.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized');
      return nodes.length === NODES.length && nodes.every(done) ? nodes : undefined;
    },
    60_000,
  );
  console.log(nodeTable(initialized).replace(/^/gm, '  '));
  ok('providerID, zone and instance-type labels set; uninitialized taint removed');

  step(4, 'Creating a LoadBalancer Service, and a backend on every Node at its nodePort');
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const created = await core.createNamespacedService({
    namespace: NAMESPACE,
    body: {
      metadata: { name: SERVICE },
      spec: {
        type: 'LoadBalancer',
        selector: { app: SERVICE },
        ports: [{ name: 'http', port: 8080, targetPort: 8080 }],
      },
    },
  });
  const nodePort = created.spec?.ports?.[0]?.nodePort;
  if (!nodePort) throw new Error('the API server allocated no nodePort');
  const backends: Backend[] = [];
  for (const n of NODES) backends.push(await startBackend(n.name, n.ip, nodePort));
  cleanups.push(() => Promise.all(backends.map((b) => b.close())).then(() => {}));
  ok(`backends listening on ${NODES.map((n) => `${n.ip}:${nodePort}`).join(', ')}`);

  step(5, 'Waiting for the service-lb-controller to provision the load balancer');
  const svc: V1Service = await waitFor(
    'EXTERNAL-IP',
    async () => {
      const s = await core.readNamespacedService({ name: SERVICE, namespace: NAMESPACE });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    },
    60_000,
  );
  console.log(serviceTable([svc]).replace(/^/gm, '  '));
  const externalIP = svc.status?.loadBalancer?.ingress?.[0]?.ip as string;

  step(6, `Sending ${REQUESTS} HTTP requests to http://${externalIP}:8080 through the load balancer`);
  await waitFor(
    'the load balancer to mark backends healthy',
    async () => (await httpGet(externalIP, 8080)) || undefined,
    30_000,
  );
  for (const b of backends) b.served = 0;
  for (let i = 1; i <= REQUESTS; i++) {
    const answer = await httpGet(externalIP, 8080);
    console.log(`  GET http://${externalIP}:8080/  ->  ${answer}`);
  }
  const reached = backends.filter((b) => b.served > 0);
  for (const b of backends) console.log(`  ${b.node} (${b.address}:${b.port}) served ${b.served}`);
  if (reached.length !== backends.length) throw new Error('not every backend was reached through the load balancer');
  ok('requests reached every Node through the load balancer');

  step(7, 'Deleting the Service: the load balancer must go away');
  await core.deleteNamespacedService({ name: SERVICE, namespace: NAMESPACE });
  await waitFor(
    'the Service to be released (finalizer removed) and deleted',
    async () => {
      try {
        await core.readNamespacedService({ name: SERVICE, namespace: NAMESPACE });
        return undefined;
      } catch (err) {
        return (err as { code?: number }).code === 404 ? true : undefined;
      }
    },
    60_000,
  );
  await waitFor(
    `${externalIP}:8080 to stop accepting connections`,
    async () =>
      httpGet(externalIP, 8080).then(
        () => undefined,
        () => true,
      ),
    30_000,
  );
  ok('the load balancer is gone: the Service was released and its listener closed');
  console.log(`\n${bold(green('Demo succeeded.'))} Cleaning up ...`);
}

const USAGE = `Usage: ccm-kit-demo (npm run demo)

Starts a real kube-apiserver + etcd, the local example's cloud-controller-manager against it (its log in
demo-ccm.log), three kubelet-style Nodes and a LoadBalancer Service, sends HTTP requests through the load
balancer, deletes the Service and cleans up. Exit status 0 when every step worked. No flags but -h, --help.`;

try {
  if (parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help) {
    console.log(USAGE);
    process.exit(0);
  }
} catch (err) {
  // parseArgs names the flag ("Unknown option '--x'…").
  console.error(`ccm-kit-demo: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(1);
}

main()
  .then(async () => {
    await cleanup();
    process.exit(0);
  })
  .catch(async (err) => {
    console.error(`\nDemo failed: ${(err as Error).message}`);
    await cleanup();
    process.exit(1);
  });
