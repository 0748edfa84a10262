/**
 * The example's own binary against a real kube-apiserver and the fake Cattle API: the cloud-node controller
 * initializes Nodes from their Rancher hosts (providerID rancher://<uuid>, ExternalIP and Hostname addresses,
 * instance type, no zone labels: the provider has no Zones); a LoadBalancer Service gets the balancer's public
 * endpoint, and a field the provider declares unsupported gets a Warning Event instead of an error loop; a new
 * Node joins the port rules; deleting the Service removes balancer and external services; the secret key is
 * never printed; SIGTERM exits 0.
 */
import { registerKubeletNodes } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCattle, startFakeCattle } from '../src/fake-cattle/index.js';
import type { PortRule } from '../src/index.js';
import { type RancherCcmProcess, startRancherCcm } from '../src/demo/rancher-ccm-process.js';

const controlPlane = useControlPlane();
let cattle: FakeCattle;
let ccm: RancherCcmProcess;
const uuids: Record<string, string> = {};

beforeAll(async () => {
  cattle = await startFakeCattle({ actionDelayMs: 50, endpointDelayMs: 50 });
  for (const [hostname, address] of [
    ['node-1.example.com', '10.42.0.11'],
    ['node-2', '10.42.0.12'],
    ['node-3', '10.42.0.13'],
  ] as const) {
    uuids[hostname] = String(cattle.state.addHost({ hostname, addresses: [address] }).uuid);
  }
  ccm = startRancherCcm({ kubeconfigPath: controlPlane().kubeconfigPath, cattle });
});
afterAll(async () => {
  await ccm?.stop();
  await cattle?.close();
});

const initialized = (n: V1Node | undefined) =>
  !!n?.spec?.providerID &&
  !n.spec.taints?.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized') &&
  (n.status?.addresses ?? []).some((a) => a.type === 'ExternalIP');

function balancerRules(): { name: string; targetPort: number }[] {
  const [lb] = cattle.state.list('loadBalancerService');
  const rules = (lb?.lbConfig as { portRules?: PortRule[] } | undefined)?.portRules ?? [];
  return rules.map((r) => ({ name: String(cattle.state.get(r.serviceId)?.name), targetPort: r.targetPort }));
}

describe('rancher-cloud-controller-manager against a real API server', () => {
  it('initializes Nodes, serves a LoadBalancer, follows the Nodes and cleans up', async () => {
    const core = controlPlane().kubeConfig.makeApiClient(CoreV1Api);
    const heartbeat = await registerKubeletNodes(core, [{ name: 'node-1' }, { name: 'node-2' }]);
    const beats = setInterval(() => void heartbeat().catch(() => undefined), 2_000);
    try {
      const node1 = await eventuallyValue(async () => {
        const n = await core.readNode({ name: 'node-1' });
        return initialized(n) ? n : undefined;
      }, 'node-1 initialized');
      expect(node1.spec?.providerID).toBe(`rancher://${uuids['node-1.example.com']}`);
      expect(node1.status?.addresses).toEqual([
        { type: 'ExternalIP', address: '10.42.0.11' },
        { type: 'Hostname', address: 'node-1.example.com' },
      ]);
      expect(node1.metadata?.labels).toMatchObject({ 'node.kubernetes.io/instance-type': 'rancher' });
      expect(Object.keys(node1.metadata?.labels ?? {}).filter((l) => l.startsWith('topology.kubernetes.io/'))).toEqual(
        [],
      );

      await core.createNamespacedService({
        namespace: 'default',
        body: {
          metadata: { name: 'web' },
          spec: {
            type: 'LoadBalancer',
            selector: { app: 'web' },
            sessionAffinity: 'ClientIP',
            ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
          },
        },
      });
      const svc = await eventuallyValue(async () => {
        const s = await core.readNamespacedService({ name: 'web', namespace: 'default' });
        return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
      }, 'the ingress IP');
      expect(svc.status?.loadBalancer?.ingress?.map((i) => i.ip)).toEqual(['203.0.113.10']);
      const nodePort = svc.spec!.ports![0]!.nodePort!;
      expect(balancerRules()).toEqual([
        { name: 'node-1', targetPort: nodePort },
        { name: 'node-2', targetPort: nodePort },
      ]);
      const events = (await core.listNamespacedEvent({ namespace: 'default' })).items;
      expect(events.find((e) => e.reason === 'UnsupportedServiceField')?.message).toMatch(
        /does not support spec\.sessionAffinity=ClientIP/,
      );

      const more = await registerKubeletNodes(core, [{ name: 'node-3' }]);
      await eventuallyValue(
        async () => balancerRules().some((r) => r.name === 'node-3') || (await more().then(() => false)),
        'node-3 in the port rules',
      );

      await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
      await eventuallyValue(
        async () => cattle.state.list('loadBalancerService', 'externalService').length === 0,
        'the balancer and external services removed',
      );
    } catch (err) {
      throw new Error(`${String(err)}\n--- the CCM's output ---\n${ccm.output().slice(-4000)}`, { cause: err });
    } finally {
      clearInterval(beats);
    }
    expect(await ccm.stop()).toBe(0);
    expect(ccm.output()).not.toContain(cattle.secretKey);
    expect(ccm.output()).toContain('Using the Cattle API');
  });
});
