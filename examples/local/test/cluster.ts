/**
 * Nodes for the tests against a real kube-apiserver, registered as kubelets with `cloud-provider: external`
 * do: the uninitialized taint, then a Ready condition.
 */
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime';
import type { CoreV1Api } from '@kubernetes/client-node';

/** Creates Nodes with the external-cloud-provider taint and a Ready condition of `True` or `False`. */
export async function registerNodes(api: CoreV1Api, nodes: readonly (readonly [string, 'True' | 'False'])[]) {
  for (const [name, ready] of nodes) {
    await api.createNode({
      body: {
        metadata: { name },
        spec: { taints: [{ key: TAINT_EXTERNAL_CLOUD_PROVIDER, value: 'true', effect: 'NoSchedule' }] },
      },
    });
    await api.patchNodeStatus(
      {
        name,
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: ready,
                reason: 'Test',
                lastHeartbeatTime: new Date(),
                lastTransitionTime: new Date(),
              },
            ],
          },
        },
      },
      patchOptions('merge'),
    );
  }
}
