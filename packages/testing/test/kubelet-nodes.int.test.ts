/** registerKubeletNodes against a real kube-apiserver: what a kubelet with --cloud-provider=external posts. */
import { CoreV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { registerKubeletNodes } from '../src/index.js';
import { PROVIDED_NODE_IP_ANNOTATION } from '../src/local-cluster/kubelet-nodes.js';
import { useControlPlane } from '../src/vitest.js';

const controlPlane = useControlPlane();

describe('registerKubeletNodes', () => {
  it('creates tainted Nodes with addresses, the provided-node-ip annotation and a Ready heartbeat', async () => {
    const core = controlPlane().kubeConfig.makeApiClient(CoreV1Api);
    const heartbeat = await registerKubeletNodes(core, [
      { name: 'kn-1', internalIP: '10.0.0.1', labels: { 'topology.kubernetes.io/zone': 'a' } },
      { name: 'kn-2', providedNodeIP: '10.0.0.2' },
    ]);
    const n1 = await core.readNode({ name: 'kn-1' });
    // (The API server's TaintNodesByCondition admission adds node.kubernetes.io/not-ready next to it.)
    expect(n1.spec?.taints).toContainEqual({
      key: 'node.cloudprovider.kubernetes.io/uninitialized',
      value: 'true',
      effect: 'NoSchedule',
    });
    expect(n1.spec?.providerID).toBeUndefined();
    expect(n1.metadata?.labels).toMatchObject({ 'kubernetes.io/hostname': 'kn-1', 'topology.kubernetes.io/zone': 'a' });
    expect(n1.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'kn-1' },
    ]);
    const n2 = await core.readNode({ name: 'kn-2' });
    expect(n2.metadata?.annotations?.[PROVIDED_NODE_IP_ANNOTATION]).toBe('10.0.0.2');
    const ready = (n: typeof n1) => n.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready(n2)).toMatchObject({ status: 'True', reason: 'KubeletReady' });

    // Another writer's condition survives the heartbeat; the heartbeat time moves on.
    await core.patchNodeStatus(
      {
        name: 'kn-1',
        body: { status: { conditions: [{ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated' }] } },
      },
      setHeaderOptions('Content-Type', 'application/strategic-merge-patch+json'),
    );
    const before = ready(await core.readNode({ name: 'kn-1' }))!.lastHeartbeatTime!;
    await new Promise((r) => setTimeout(r, 1100));
    await heartbeat();
    const after = await core.readNode({ name: 'kn-1' });
    expect(new Date(ready(after)!.lastHeartbeatTime!).getTime()).toBeGreaterThan(new Date(before).getTime());
    expect(after.status?.conditions?.map((c) => c.type).sort()).toEqual(['NetworkUnavailable', 'Ready']);
  });
});
