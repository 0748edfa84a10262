/**
 * The test API server's `--service-node-port-range` for a run. Every benchmark Service is `type: LoadBalancer`
 * with two ports (compare/objects.ts), and kube-apiserver gives each port a NodePort from this range
 * (k8s.io/kubernetes `pkg/registry/core/service/portallocator`); the default 30000–32767 holds 2,768 ports,
 * 1,384 such Services, after which a create fails with "failed to allocate a nodePort: range is full".
 *
 * A run whose Services fit keeps the default, so its API server does the same work as in the figures of
 * record (the allocator writes its whole bitmap to etcd on each allocation; a wider range makes that write
 * bigger). A bigger run gets 30000 up to what it needs plus a tenth. kube-apiserver accepts any `min-max` with
 * 0 ≤ min ≤ max ≤ 65535 (k8s.io/apimachinery `pkg/util/net/port_range.go` `PortRange.Set`) and checks it only
 * against `--kubernetes-service-node-port`, 0 (unset) here (`cmd/kube-apiserver/app/options/validation.go`
 * `validateServiceNodePort`); it binds no NodePort itself (kube-proxy would, and none runs), so the range may
 * hold the control plane's own listening ports.
 */
import { makeService } from './objects.ts';

/** kube-apiserver's default `--service-node-port-range`. */
export const DEFAULT_NODE_PORT_RANGE = { min: 30000, max: 32767 } as const;
/** Ports of each benchmark Service, each given a NodePort. */
export const NODE_PORTS_PER_SERVICE = makeService(0).spec!.ports!.length;
/** The highest port a range may end at. */
const MAX_PORT = 65535;

/**
 * `--service-node-port-range` (`min-max`) for a run that creates `services` LoadBalancer Services.
 * @throws Error naming the count when even 30000–65535 cannot hold their NodePorts (more than 16,152 Services).
 */
export function serviceNodePortRange(services: number): string {
  const { min, max } = DEFAULT_NODE_PORT_RANGE;
  const needed = services * NODE_PORTS_PER_SERVICE;
  if (needed <= max - min + 1) return `${min}-${max}`;
  const end = min + Math.ceil(needed * 1.1) - 1;
  if (end > MAX_PORT) {
    throw new Error(
      `${services} LoadBalancer Services need ${needed} NodePorts (with a tenth more, ports ${min}–${end}), more than ${min}–${MAX_PORT} holds; use fewer Services`,
    );
  }
  return `${min}-${end}`;
}
