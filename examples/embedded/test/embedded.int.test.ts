/**
 * The embedded path against a real kube-apiserver: the example's own binary (src/main.ts) registers its provider,
 * initializes it with initCloudProvider(name, configFile), wins the Lease, and its chosen controllers initialize a
 * Node and serve a LoadBalancer Service; a second replica waits; SIGTERM stops the leader cleanly (exit 0) and
 * releases the Lease, so the second replica takes over at once; a bad cloud config fails before anything starts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = new URL('../dist/main.js', import.meta.url).pathname;
const LEASE = { namespace: 'kube-system', name: 'embedded-embedded-controllers' };
const controlPlane = useControlPlane();
const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-embedded-'));
const cloudConfig = join(dir, 'cloud.json');
const running: ChildProcess[] = [];

interface Replica {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startReplica(identity: string, config = cloudConfig): Replica {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      '--kubeconfig',
      controlPlane().kubeconfigPath,
      '--cloud-config',
      config,
      '--identity',
      identity,
      '--controllers',
      'cloud-node-controller,service-lb-controller',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

beforeAll(() => {
  writeFileSync(
    cloudConfig,
    JSON.stringify({
      machines: [{ name: 'node-a', id: 'a1', zone: 'zone-1', address: '10.0.0.11' }],
      loadBalancerAddresses: ['203.0.113.10'],
    }),
  );
});
afterAll(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const holder = async () =>
  (
    await controlPlane()
      .kubeConfig.makeApiClient(CoordinationV1Api)
      .readNamespacedLease(LEASE)
      .catch(() => undefined)
  )?.spec?.holderIdentity;

describe('a vendor binary embedding the cloud controllers', () => {
  it('leads with a Lease, initializes Nodes, serves LoadBalancers, and hands over on SIGTERM', async () => {
    const core = controlPlane().kubeConfig.makeApiClient(CoreV1Api);
    const a = startReplica('replica-a');
    await eventuallyValue(async () => (await holder()) === 'replica-a', {
      timeoutMs: 30_000,
      what: 'replica-a holding the Lease',
    });

    await core.createNode({
      body: {
        metadata: { name: 'node-a' },
        spec: {
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
        },
      },
    });
    const node = await eventuallyValue(
      async () => {
        const n = await core.readNode({ name: 'node-a' });
        return n.spec?.providerID ? n : undefined;
      },
      { timeoutMs: 30_000, what: 'node-a initialized' },
    );
    expect(node.spec?.providerID).toBe('embedded://a1');
    expect(node.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('zone-1');

    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const ip = await eventuallyValue(
      async () =>
        (await core.readNamespacedServiceStatus({ namespace: 'default', name: 'web' })).status?.loadBalancer
          ?.ingress?.[0]?.ip,
      { timeoutMs: 30_000, what: 'the ingress of default/web' },
    );
    expect(ip).toBe('203.0.113.10');

    // A second replica waits while the first one leads.
    const b = startReplica('replica-b');
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await holder()).toBe('replica-a');

    // SIGTERM: the leader stops its controllers, releases the Lease and exits 0; the other takes over well
    // before the 15 s lease duration would have run out.
    const stoppedAt = Date.now();
    a.child.kill('SIGTERM');
    expect(await a.exited, a.output()).toBe(0);
    await eventuallyValue(async () => (await holder()) === 'replica-b', {
      timeoutMs: 10_000,
      what: 'replica-b holding the Lease',
    });
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(a.output()).toMatch(/The cloud controllers stopped/);

    b.child.kill('SIGTERM');
    expect(await b.exited, b.output()).toBe(0);
  }, 120_000);

  it('fails before it starts anything when the cloud config is bad, naming the problem', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ machines: [] }));
    const r = startReplica('replica-bad', bad);
    expect(await r.exited).toBe(1);
    expect(r.output()).toContain(
      'could not init cloud provider "embedded": embedded cloud-config: "loadBalancerAddresses" must be a list of IPs',
    );
  }, 60_000);
});
