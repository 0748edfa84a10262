/**
 * node-ipam-controller on each Kubernetes minor of the version-skew suite (`npm run test:skew`,
 * docs/compatibility.md): 30 Nodes created at once without Pod CIDRs, dual-stack, each get distinct CIDRs of both
 * families in order; a deleted Node's CIDRs go to a Node that waited for them (a pool of 32 blocks); its
 * `CIDRNotAvailable` Event is written on every minor.
 */
import type { CloudControllerManager } from '@ccm-kit/app';
import { type CapturedLogs, captureLogs, type ControlPlane, FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';
import { allocated, createNodes, expectDistinctAllocation, nodesOf, waitAllAllocated } from './node-ipam-fixture.js';
import { skewVersions } from './skew-versions.js';

// 32 IPv4 blocks (/19 in /24s) and 64 IPv6 ones (/58 in /64s).
const CLUSTER_CIDR = '10.96.0.0/19,fd00:96::/58';

describe.each(skewVersions())('node-ipam-controller on Kubernetes %s', (version) => {
  const controlPlane = useControlPlane({ kubernetesVersion: version });
  let cp: ControlPlane;
  let core: CoreV1Api;
  let ccm: CloudControllerManager;
  let logs: CapturedLogs;

  beforeAll(async () => {
    cp = controlPlane();
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    logs = captureLogs();
    ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=fake',
        '--secure-port=0',
        '--leader-elect=false',
        '--controllers=node-ipam-controller',
        '--allocate-node-cidrs=true',
        `--cluster-cidr=${CLUSTER_CIDR}`,
      ],
      cloud: new FakeCloud({ enableInstancesV2: true }),
      kubeConfig: cp.kubeConfig,
    });
  }, 120_000);

  afterAll(async () => {
    await ccm?.stop();
    logs?.restore();
  });

  it('30 Nodes at once get distinct IPv4 and IPv6 CIDRs, in order', async () => {
    await createNodes(core, 'skew-ipam', 30);
    expectDistinctAllocation(await waitAllAllocated(core, 'skew-ipam', 30), CLUSTER_CIDR);
  });

  it('a full IPv4 pool: CIDRNotAvailable, and a deleted Node lets the waiting one through', async () => {
    await createNodes(core, 'skew-ipam', 3, 30); // 32 blocks: two get one, the third waits
    const waiting = await eventuallyValue(async () => {
      const nodes = await nodesOf(core, 'skew-ipam');
      return nodes.length === 33 && allocated(nodes).length === 32
        ? nodes.find((n) => !n.spec?.podCIDRs?.length)
        : undefined;
    }, 'a Node waiting for a block');
    const name = waiting.metadata!.name!;
    const event = await eventuallyValue(async () => {
      const list = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${name}`,
      });
      return list.items.find((e) => e.reason === 'CIDRNotAvailable');
    }, 'CIDRNotAvailable');
    expect(event).toMatchObject({ type: 'Warning', message: `Node ${name} status is now: CIDRNotAvailable` });
    const freed = (await core.readNode({ name: 'skew-ipam-0' })).spec!.podCIDRs!;
    await core.deleteNode({ name: 'skew-ipam-0' });
    const got = await eventuallyValue(
      async () => (await core.readNode({ name })).spec?.podCIDRs,
      'the waiting Node to get the freed CIDRs',
    );
    expect(got[0]).toBe(freed[0]);
    expectDistinctAllocation(await nodesOf(core, 'skew-ipam'), CLUSTER_CIDR);
  });
});
