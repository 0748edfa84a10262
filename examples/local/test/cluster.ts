/**
 * For the tests against a real kube-apiserver: this provider's manager in process, and Nodes registered as
 * kubelets with `cloud-provider: external` do (the uninitialized taint, then a Ready condition).
 */
import { type CloudControllerManager, startCloudControllerManager } from '@ccm-kit/app';
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime/client';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { register } from '../src/provider.js';

/**
 * Registers the provider and starts ccm-kit's manager with `--cloud-provider=local --cloud-config=<configPath>`,
 * no leader election, no routes, no secure port, plus `argv`.
 */
export function startLocalManager(
  configPath: string,
  kubeConfig: KubeConfig,
  opts: { argv?: readonly string[]; providerShutdownTimeoutMs?: number } = {},
): Promise<CloudControllerManager> {
  register();
  return startCloudControllerManager({
    argv: [
      '--cloud-provider=local',
      `--cloud-config=${configPath}`,
      '--leader-elect=false',
      '--configure-cloud-routes=false',
      '--secure-port=0',
      ...(opts.argv ?? []),
    ],
    kubeConfig,
    ...(opts.providerShutdownTimeoutMs !== undefined
      ? { providerShutdownTimeoutMs: opts.providerShutdownTimeoutMs }
      : {}),
  });
}

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
