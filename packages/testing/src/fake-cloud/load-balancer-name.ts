import type { V1Service } from '@kubernetes/client-node';

// TODO(defaultLoadBalancerName): replace with `defaultLoadBalancerName` from @ccm-kit/cloud-provider
// once it is exported there; this private copy follows upstream `cloud.go` DefaultLoadBalancerName.

const MAX_NAME_BYTES = 32;

/**
 * The legacy load-balancer name of `service`: `"a"` + its UID with every `-` removed, cut to the
 * first 32 bytes (an empty UID gives `"a"`).
 */
export function defaultLoadBalancerName(service: V1Service): string {
  const name = `a${service.metadata?.uid ?? ''}`.replaceAll('-', '');
  const bytes = Buffer.from(name, 'utf8');
  return bytes.length <= MAX_NAME_BYTES ? name : bytes.subarray(0, MAX_NAME_BYTES).toString('utf8');
}
