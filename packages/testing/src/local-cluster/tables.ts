/** kubectl-like tables of Nodes and Services, for `ccm-kit dev` and the local demo. */
import type { V1Node, V1Service } from '@kubernetes/client-node';

/** Renders rows as left-aligned columns, like `kubectl get`. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('   ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

/** NAME  PROVIDER-ID  ZONE  INSTANCE-TYPE  INTERNAL-IP  INITIALIZED */
export function nodeTable(nodes: readonly V1Node[]): string {
  return table(
    ['NAME', 'PROVIDER-ID', 'ZONE', 'INSTANCE-TYPE', 'INTERNAL-IP', 'INITIALIZED'],
    nodes.map((n) => {
      const labels = n.metadata?.labels ?? {};
      const tainted = n.spec?.taints?.some((t) => t.key === UNINITIALIZED) ?? false;
      return [
        n.metadata?.name ?? '',
        n.spec?.providerID || '<none>',
        labels['topology.kubernetes.io/zone'] ?? '<none>',
        labels['node.kubernetes.io/instance-type'] ?? '<none>',
        n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '<none>',
        tainted ? 'no (tainted)' : 'yes',
      ];
    }),
  );
}

/** NAME  TYPE  CLUSTER-IP  EXTERNAL-IP  PORT(S)  FINALIZER */
export function serviceTable(services: readonly V1Service[]): string {
  return table(
    ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'LB-FINALIZER'],
    services.map((s) => [
      `${s.metadata?.namespace}/${s.metadata?.name}`,
      s.spec?.type ?? '',
      s.spec?.clusterIP ?? '',
      s.status?.loadBalancer?.ingress?.map((i) => i.ip ?? i.hostname).join(',') || '<pending>',
      (s.spec?.ports ?? []).map((p) => `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}`).join(','),
      s.metadata?.finalizers?.includes('service.kubernetes.io/load-balancer-cleanup') ? 'yes' : 'no',
    ]),
  );
}
