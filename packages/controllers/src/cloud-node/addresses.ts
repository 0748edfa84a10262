/**
 * Pure address logic of the cloud-node controller: which `status.addresses` a Node should get from the
 * cloud's addresses, whether that is a change, and the status patch that writes it.
 *
 * Follows upstream `controllers/node/node_controller.go` (`updateNodeAddress`,
 * `nodeAddressesChangeDetected`, `updateNodeAddressesFromNodeIP`) and component-helpers
 * `PatchNodeStatus`. Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream quirks 14–16 in docs/upstream-quirks.md.
 */
import { ANNOTATION_ALPHA_PROVIDED_IP_ADDR, getNodeAddressesFromNodeIP } from '@ccm-kit/cloud-provider';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';

/**
 * Upstream's lossy change detection: a different length is a change; otherwise the old list is folded into a
 * map type → address (the last entry of a type wins) and any new entry whose address differs from the map's
 * entry for its type is a change. `[InternalIP a, InternalIP b]` → `[InternalIP b, InternalIP b]` is "unchanged".
 */
export function nodeAddressesChangeDetected(
  oldAddresses: readonly V1NodeAddress[] | undefined,
  newAddresses: readonly V1NodeAddress[] | undefined,
): boolean {
  const before = oldAddresses ?? [];
  const after = newAddresses ?? [];
  if (before.length !== after.length) return true;
  const byType = new Map<string, string>();
  for (const a of before) byType.set(a.type, a.address);
  return after.some((a) => (byType.get(a.type) ?? '') !== a.address);
}

/**
 * Applies the kubelet's `alpha.kubernetes.io/provided-node-ip` annotation, when the Node has one, to
 * `addresses` (upstream `updateNodeAddressesFromNodeIP`). Without the annotation the list is returned as is.
 * @throws Error from `getNodeAddressesFromNodeIP` when the annotation does not parse or matches no address.
 */
export function applyProvidedNodeIP(node: V1Node, addresses: V1NodeAddress[]): V1NodeAddress[] {
  const annotations = node.metadata?.annotations;
  if (!annotations || !Object.hasOwn(annotations, ANNOTATION_ALPHA_PROVIDED_IP_ADDR)) return addresses;
  return getNodeAddressesFromNodeIP(annotations[ANNOTATION_ALPHA_PROVIDED_IP_ADDR]!, addresses);
}

/**
 * The addresses a Node should carry given the cloud's `cloudAddresses` (the address part of upstream
 * `updateNodeAddress`), or `undefined` when nothing should be written:
 * - an empty cloud list writes nothing (addresses are never cleared);
 * - when the cloud returns no `Hostname`, every `Hostname` of the Node's current status is appended, in order;
 * - the provided-node-ip annotation then filters and orders the list;
 * - an unchanged list ({@link nodeAddressesChangeDetected}) writes nothing.
 * @throws Error when the provided-node-ip annotation is invalid or matches no cloud address (the status loop
 *   logs it and skips the Node).
 */
export function desiredNodeAddresses(
  node: V1Node,
  cloudAddresses: readonly V1NodeAddress[] | undefined,
): V1NodeAddress[] | undefined {
  if (!cloudAddresses || cloudAddresses.length === 0) return undefined;
  let addresses = cloudAddresses.map((a) => ({ type: a.type, address: a.address }));
  const current = node.status?.addresses ?? [];
  if (!addresses.some((a) => a.type === 'Hostname')) {
    for (const a of current) if (a.type === 'Hostname') addresses.push({ type: a.type, address: a.address });
  }
  addresses = applyProvidedNodeIP(node, addresses);
  return nodeAddressesChangeDetected(current, addresses) ? addresses : undefined;
}

/**
 * The strategic-merge-patch body for `PATCH nodes/<name>/status` that writes `addresses`, byte for byte what
 * upstream's `PatchNodeStatus` sends for an address change from `previous`:
 * - `previous` non-empty: the full new list followed by the `{"$patch":"replace"}` directive (upstream's fix-up
 *   for `addresses` being wrongly tagged as a merge list), so the server replaces the list;
 * - `previous` empty: the plain new list, which is what the two-way diff gives when the old Node has no
 *   `addresses` key at all (Go omits an empty list).
 */
export function nodeAddressesStatusPatch(
  addresses: readonly V1NodeAddress[],
  previous: readonly V1NodeAddress[] | undefined,
): {
  status: { addresses: Array<V1NodeAddress | { $patch: 'replace' }> };
} {
  const list: Array<V1NodeAddress | { $patch: 'replace' }> = addresses.map((a) => ({ ...a }));
  if ((previous ?? []).length > 0) list.push({ $patch: 'replace' });
  return { status: { addresses: list } };
}
