#!/usr/bin/env node
/**
 * `npm run demo -w examples/rancher`: rancher-cloud-controller-manager on ccm-kit, end to end on one machine.
 *
 * 1. starts a real kube-apiserver + etcd and the fake Cattle API (two Rancher hosts);
 * 2. starts the example's binary, configured by CATTLE_URL / CATTLE_ACCESS_KEY / CATTLE_SECRET_KEY;
 * 3. registers two Nodes as kubelets do — one by a short name for a host Rancher knows by its qualified name —
 *    and waits for the cloud-node controller to initialize them from the Rancher hosts;
 * 4. creates a LoadBalancer Service and waits for its ingress IP (the balancer's public endpoint);
 * 5. prints the balancer's port rules as Rancher holds them;
 * 6. deletes the Service and shows balancer and external services gone.
 * Exit status 0 when every step worked; everything is cleaned up on exit or Ctrl-C.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureControlPlaneBinaries, nodeTable, registerKubeletNodes, startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import { startFakeCattle } from '../fake-cattle/index.js';
import { portRuleTable } from './balancer-table.js';
import { startRancherCcm } from './rancher-ccm-process.js';

const HOSTS = [
  { hostname: 'rancher-node-1.example.com', addresses: ['10.42.0.11'] },
  { hostname: 'rancher-node-2', addresses: ['10.42.0.12'] },
];
const NODES = ['rancher-node-1', 'rancher-node-2'];
const NAMESPACE = 'default';
const SERVICE = 'web';

const step = (n: number, text: string) => console.log(`\n[${n}/6] ${text}`);
const ok = (text: string) => console.log(`  ✓ ${text}`);

const cleanups: Array<() => unknown> = [];
async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => undefined);
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void cleanup().then(() => process.exit(130)));

/** Polls `fn` every 250 ms until it returns a value; prints how long it took. */
async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) {
      ok(`${what} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
      return v;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main(): Promise<void> {
  console.log('rancher-cloud-controller-manager on ccm-kit, against a real kube-apiserver and a fake Cattle API');

  step(1, 'Starting etcd + kube-apiserver and the fake Cattle API');
  const binaries = await ensureControlPlaneBinaries({ build: true, onProgress: (l) => console.log(`  ${l}`) });
  const cp = await startControlPlane({ binaries });
  cleanups.push(() => cp.stop());
  const cattle = await startFakeCattle({ actionDelayMs: 300, endpointDelayMs: 500 });
  cleanups.push(() => cattle.close());
  for (const h of HOSTS) cattle.state.addHost(h);
  ok(`kube-apiserver at ${cp.server}; Cattle API at ${cattle.url} (hosts ${HOSTS.map((h) => h.hostname).join(', ')})`);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);

  step(2, 'Starting rancher-cloud-controller-manager (CATTLE_URL, CATTLE_ACCESS_KEY, CATTLE_SECRET_KEY)');
  const dir = await mkdtemp(join(tmpdir(), 'ccm-kit-rancher-demo-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const ccm = startRancherCcm({ kubeconfigPath: cp.kubeconfigPath, cattle });
  cleanups.push(async () => {
    await ccm.stop();
    await writeFile(join(dir, 'ccm.log'), ccm.output());
  });
  void ccm.exited.then((code) => {
    if (cleanups.length > 0) console.error(`\nthe CCM exited (${code}):\n${ccm.output().slice(-3000)}`);
  });
  ok(`pid ${ccm.child.pid}`);

  step(3, `Registering Nodes ${NODES.join(', ')} as kubelets with --cloud-provider=external do`);
  const heartbeat = await registerKubeletNodes(
    core,
    NODES.map((name) => ({ name })),
  );
  const beats = setInterval(() => void heartbeat().catch(() => undefined), 5_000);
  cleanups.push(() => clearInterval(beats));
  const nodes = await waitFor('the Nodes to be initialized from their Rancher hosts', async () => {
    const list = (await core.listNode()).items;
    const done = list.every(
      (n) => n.spec?.providerID && (n.status?.addresses ?? []).some((a) => a.type === 'ExternalIP'),
    );
    return list.length === NODES.length && done ? list : undefined;
  });
  console.log(nodeTable(nodes).replace(/^/gm, '  '));
  for (const n of nodes) {
    const addresses = (n.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).join(' ');
    console.log(`  ${n.metadata?.name}: ${addresses}`);
  }

  step(4, `Creating LoadBalancer Service ${NAMESPACE}/${SERVICE} (ports 80 and 443)`);
  await core.createNamespacedService({
    namespace: NAMESPACE,
    body: {
      metadata: { name: SERVICE },
      spec: {
        type: 'LoadBalancer',
        selector: { app: SERVICE },
        ports: [
          { name: 'http', port: 80, protocol: 'TCP' },
          { name: 'https', port: 443, protocol: 'TCP' },
        ],
      },
    },
  });
  const ip = await waitFor(
    'the ingress IP (Rancher activates the services, then the balancer gets its endpoint)',
    async () =>
      (await core.readNamespacedService({ name: SERVICE, namespace: NAMESPACE })).status?.loadBalancer?.ingress?.[0]
        ?.ip,
  );
  console.log(`\n  ingress IP: ${ip}`);

  step(5, "The balancer's port rules in Rancher");
  const [balancer] = cattle.state.list('loadBalancerService');
  console.log(
    `  balancer ${String(balancer!.name)} (stack kubernetes-loadbalancers), launch ports ${JSON.stringify((balancer!.launchConfig as { ports: string[] }).ports)}`,
  );
  console.log(portRuleTable(cattle.state, balancer!).replace(/^/gm, '  '));

  step(6, 'Deleting the Service');
  await core.deleteNamespacedService({ name: SERVICE, namespace: NAMESPACE });
  await waitFor('the balancer and its external services to be removed', async () =>
    cattle.state.list('loadBalancerService', 'externalService').length === 0 ? true : undefined,
  );
  if (ccm.output().includes(cattle.secretKey)) throw new Error('the secret key appeared in the CCM output');
  ok('the secret key appears nowhere in the CCM output');
  console.log('\nDone.');
}

try {
  await main();
  await cleanup();
  process.exit(0);
} catch (err) {
  console.error(`\ndemo failed: ${(err as Error).message}`);
  await cleanup();
  process.exit(1);
}
