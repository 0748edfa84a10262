/**
 * Routes in `ccm-kit dev`: on a local control plane the CCM runs with `--configure-cloud-routes=true` and a
 * cluster CIDR, and each dev Node has a Pod CIDR from it (what the cluster's node IPAM would have given it), so a
 * provider with the Routes facet gets its routes created as in a cluster. Whether the node-route-controller
 * started is the CCM's decision (upstream `startNodeRouteController`: no Routes facet, no controller); the CCM's
 * log line is turned into one line of dev's own.
 */
import { UsageError } from '../usage-error.js';

/** The cluster CIDR of `ccm-kit dev`'s local control plane (kubeadm's and flannel's usual Pod network). */
export const DEV_CLUSTER_CIDR = '10.244.0.0/16';

/**
 * The Pod CIDR of each of `count` dev Nodes: the /24s of an IPv4 `clusterCIDR` after its first
 * (`10.244.0.0/16` → `10.244.1.0/24`, `10.244.2.0/24`, …).
 * @throws UsageError naming `--cluster-cidr` when it is not IPv4 with a prefix of /8 to /23, or too small.
 */
export function devPodCIDRs(clusterCIDR: string, count: number): string[] {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(clusterCIDR);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const prefix = m ? Number(m[5]) : NaN;
  if (!m || octets.some((o) => o > 255) || !(prefix >= 8 && prefix <= 23))
    throw new UsageError(
      `--cluster-cidr: "${clusterCIDR}" is not an IPv4 CIDR of /8 to /23 (e.g. ${DEV_CLUSTER_CIDR})`,
    );
  if (count >= 2 ** (24 - prefix))
    throw new UsageError(`--cluster-cidr: ${clusterCIDR} has no room for ${count} /24 Pod CIDRs after its first`);
  const base = (octets.reduce((a, o) => a * 256 + o, 0) >>> (32 - prefix)) * 2 ** (32 - prefix);
  return Array.from({ length: count }, (_, i) => {
    const n = base + (i + 1) * 256;
    return `${[24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.')}/24`;
  });
}

/** The CCM flags for routes, and the line `ccm-kit dev` prints about them before the CCM starts. */
export function devRouteFlags(o: { kubeconfig?: string; clusterCIDR: string; podCIDRs: string[] }): {
  flags: string[];
  note: string;
} {
  if (o.kubeconfig)
    return {
      flags: ['--configure-cloud-routes=false'],
      note:
        '[ccm-kit dev] routes: off on an existing cluster (--kubeconfig), whose Pod network dev does not know; ' +
        'to turn them on: ccm-kit dev … -- --configure-cloud-routes=true --cluster-cidr=<its cluster CIDR>',
    };
  const nodes = o.podCIDRs.map((c, i) => `dev-node-${i + 1} ${c}`).join(', ');
  return {
    flags: ['--configure-cloud-routes=true', `--cluster-cidr=${o.clusterCIDR}`],
    note:
      `[ccm-kit dev] routes: --configure-cloud-routes=true --cluster-cidr=${o.clusterCIDR}` +
      `${nodes ? `, Pod CIDRs ${nodes}` : ''}; the node-route-controller runs if the provider has Routes`,
  };
}

/** Dev's line for a line of the CCM's log about the node-route-controller, or undefined for any other line. */
export function routeControllerNote(ccmLine: string): string | undefined {
  if (ccmLine.includes('cloud provider does not support routes'))
    return '[ccm-kit dev] routes: off — the provider has no Routes facet (routes() returns undefined), so the CCM does not start the node-route-controller';
  // klog's text format quotes the message: "Started \"node-route-controller\"".
  if (/Started \\?"node-route-controller\\?"/.test(ccmLine))
    return '[ccm-kit dev] routes: on — the node-route-controller started';
  return undefined;
}
