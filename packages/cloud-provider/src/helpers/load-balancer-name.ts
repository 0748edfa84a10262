/**
 * The legacy default load-balancer name.
 * Follows upstream `k8s.io/cloud-provider/cloud.go` `DefaultLoadBalancerName`.
 */
import type { V1Service } from '@kubernetes/client-node';

const MAX_NAME_BYTES = 32;

/**
 * `"a" + metadata.uid` with every `-` removed, cut to its first 32 bytes (UTF-8). An empty or missing
 * UID gives `"a"`. Kubernetes UIDs are ASCII, so bytes and characters agree; for other text the cut
 * never splits a character (upstream would split bytes). Deprecated upstream, but still the default
 * a provider's `getLoadBalancerName` may return.
 */
export function defaultLoadBalancerName(service: Pick<V1Service, 'metadata'>): string {
  const name = `a${service.metadata?.uid ?? ''}`.replaceAll('-', '');
  let out = '';
  let bytes = 0;
  for (const ch of name) {
    bytes += Buffer.byteLength(ch, 'utf-8');
    if (bytes > MAX_NAME_BYTES) break;
    out += ch;
  }
  return out;
}
