/**
 * Helpers of the node-ipam-controller tests against a real API server (node-ipam.int.test.ts and the skew suite):
 * Nodes created without Pod CIDRs in a labelled group, and the invariant "one CIDR per cluster CIDR, in order,
 * inside it, none on two Nodes".
 */
import { cidrContains, parseCIDR } from '@ccm-kit/cloud-provider';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { expect } from 'vitest';

/** Creates `count` Nodes without Pod CIDRs named `<group>-<i>`, labelled `group=<group>`, 20 requests at a time. */
export async function createNodes(core: CoreV1Api, group: string, count: number, from = 0): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${group}-${from + i}`);
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(
      names.slice(i, i + 20).map((name) => core.createNode({ body: { metadata: { name, labels: { group } } } })),
    );
  }
  return names;
}

/** The Nodes of the group. */
export async function nodesOf(core: CoreV1Api, group: string): Promise<V1Node[]> {
  return (await core.listNode({ labelSelector: `group=${group}` })).items;
}

/** The Nodes that have Pod CIDRs. */
export const allocated = (nodes: V1Node[]): V1Node[] => nodes.filter((n) => (n.spec?.podCIDRs?.length ?? 0) > 0);

/**
 * Every Node has one CIDR per `--cluster-cidr` item, in order, inside it, and `podCIDR` is the first; no CIDR is
 * on two Nodes.
 */
export function expectDistinctAllocation(nodes: V1Node[], clusterCIDRs: string): void {
  const pools = clusterCIDRs.split(',').map((c) => parseCIDR(c));
  const holder = new Map<string, string>();
  for (const n of nodes) {
    const cidrs = n.spec?.podCIDRs ?? [];
    expect(cidrs, n.metadata!.name).toHaveLength(pools.length);
    expect(n.spec?.podCIDR).toBe(cidrs[0]);
    cidrs.forEach((c, i) => {
      expect(cidrContains(pools[i]!, parseCIDR(c).network), `${c} in ${pools[i]!.text}`).toBe(true);
      expect(holder.get(c), `${c} on ${n.metadata!.name} and ${holder.get(c)}`).toBeUndefined();
      holder.set(c, n.metadata!.name!);
    });
  }
}

/** Waits until the group has `count` Nodes, all with Pod CIDRs; returns them. */
export function waitAllAllocated(core: CoreV1Api, group: string, count: number, timeoutMs = 60_000): Promise<V1Node[]> {
  return eventuallyValue(
    async () => {
      const nodes = await nodesOf(core, group);
      return nodes.length === count && allocated(nodes).length === count ? nodes : undefined;
    },
    { what: `all ${count} Nodes of ${group} to have podCIDRs`, timeoutMs },
  );
}
