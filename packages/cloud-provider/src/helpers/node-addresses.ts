/**
 * Node address helpers.
 * Follows upstream `k8s.io/cloud-provider/node/helpers/address.go` and component-helpers'
 * `ParseNodeIPAnnotation` (upstream `k8s.io/cloud-provider node/helpers/address.go`). Pure functions: inputs are never modified.
 */
import type { V1NodeAddress } from '@kubernetes/client-node';
import { formatIP, type IPAddress, ipEqual, isUnspecified, parseIP } from '../net.js';

/**
 * Appends each address of `toAdd` to `addresses` unless an entry with the same `address` **and** `type`
 * is already there (duplicates inside `toAdd` are dropped too); order is kept (upstream `AddToNodeAddresses`).
 * @returns a new array; the inputs are not modified. `undefined` counts as empty.
 */
export function addToNodeAddresses(
  addresses: readonly V1NodeAddress[] | undefined,
  ...toAdd: V1NodeAddress[]
): V1NodeAddress[] {
  const out = [...(addresses ?? [])];
  for (const add of toAdd) {
    if (!out.some((a) => a.address === add.address && a.type === add.type)) out.push(add);
  }
  return out;
}

/**
 * Parses the `alpha.kubernetes.io/provided-node-ip` annotation (component-helpers
 * `ParseNodeIPAnnotation`): one IP, or a dual-stack pair separated by `,`. Items are **not** trimmed;
 * IPv4 with leading zeros is accepted.
 * @returns the IPs in Go's canonical text form, in annotation order.
 * @throws Error `could not parse "<item>"` for an item that is not an IP (including an empty one);
 *   `must contain either a single IP or a dual-stack pair of IPs`;
 *   `dual-stack node IP cannot include '0.0.0.0' or '::'`.
 */
export function parseNodeIPAnnotation(value: string): string[] {
  return parseNodeIPs(value).map(formatIP);
}

function parseNodeIPs(value: string): IPAddress[] {
  const ips: IPAddress[] = [];
  for (const item of value.split(',')) {
    const ip = parseIP(item);
    if (ip === undefined) throw new Error(`could not parse ${JSON.stringify(item)}`);
    ips.push(ip);
  }
  const [first, second] = ips;
  if (ips.length > 2 || (first && second && first.family === second.family)) {
    throw new Error('must contain either a single IP or a dual-stack pair of IPs');
  }
  if (first && second && (isUnspecified(first) || isUnspecified(second))) {
    throw new Error("dual-stack node IP cannot include '0.0.0.0' or '::'");
  }
  return ips;
}

/**
 * Filters the cloud's addresses by the kubelet's provided node IP(s) (upstream `GetNodeAddressesFromNodeIP`):
 * 1. for each node IP in order, every cloud address equal to it as a parsed IP (so IPv6 spellings match)
 *    is taken, keeping the cloud's text and type, and its type is marked as matched;
 * 2. then every cloud address whose type was not matched follows, in cloud order.
 *
 * So matched entries come first in node-IP order, other addresses of a matched type are dropped, and
 * Hostname/DNS entries stay unless their type matched. Cloud addresses that do not parse never match.
 * @param providedNodeIP - the annotation value.
 * @returns a new array of copies of the cloud's entries.
 * @throws Error `failed to parse node IP "<value>": <reason>` when the annotation is invalid
 *   (see {@link parseNodeIPAnnotation}).
 * @throws Error `failed to get node address from cloud provider that matches ip: <ip>` when a node IP
 *   matches no cloud address.
 */
export function getNodeAddressesFromNodeIP(
  providedNodeIP: string,
  cloudAddresses: readonly V1NodeAddress[],
): V1NodeAddress[] {
  let nodeIPs: IPAddress[];
  try {
    nodeIPs = parseNodeIPs(providedNodeIP);
  } catch (err) {
    throw new Error(`failed to parse node IP ${JSON.stringify(providedNodeIP)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const parsed = cloudAddresses.map((a) => parseIP(a.address));
  const matchedTypes = new Set<string>();
  const out: V1NodeAddress[] = [];
  for (const nodeIP of nodeIPs) {
    let found = false;
    cloudAddresses.forEach((addr, i) => {
      const ip = parsed[i];
      if (ip !== undefined && ipEqual(ip, nodeIP)) {
        out.push({ ...addr });
        matchedTypes.add(addr.type);
        found = true;
      }
    });
    if (!found) {
      throw new Error(`failed to get node address from cloud provider that matches ip: ${formatIP(nodeIP)}`);
    }
  }
  for (const addr of cloudAddresses) {
    if (!matchedTypes.has(addr.type)) out.push({ ...addr });
  }
  return out;
}
