/**
 * Correctness parity: the final state a CCM leaves (Node labels, annotations, taints, addresses,
 * providerID, the NetworkUnavailable condition; Service finalizers, annotations, conditions and
 * load-balancer ingress; the fake cloud's balancers and routes as counts and hashes), normalized so two
 * runs can be diffed. Load-balancer IPs come from a counter in the order the CCM asked for balancers,
 * so each is replaced by `<lb-ip>` after checking it is a fakebench address and unique.
 */
import { CoreV1Api, type KubeConfig, type V1Node, type V1Service } from '@kubernetes/client-node';
import { BENCH_LABEL, BENCH_NAMESPACE } from './objects.ts';

/** Object key (`node/<name>`, `service/<name>`, `cloud/fakebench`) → flattened field path → value. */
export type StateDump = Record<string, Record<string, string>>;

function flatten(prefix: string, value: unknown, out: Record<string, string>): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object') {
    out[prefix] = String(value);
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(`${prefix}.${k}`, v, out);
}

function sortedEntries(rec: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(rec ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}

function nodeState(node: V1Node): Record<string, string> {
  const out: Record<string, string> = {};
  flatten('providerID', node.spec?.providerID ?? '', out);
  flatten('labels', sortedEntries(node.metadata?.labels), out);
  flatten('annotations', sortedEntries(node.metadata?.annotations), out);
  const taints = (node.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
  out.taints = taints.join(',');
  out.addresses = (node.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).join(',');
  // Set by the route controller (W4); the timestamps differ run to run, status and reason must not.
  const net = (node.status?.conditions ?? []).find((c) => c.type === 'NetworkUnavailable');
  if (net) out.networkUnavailable = `${net.status}:${net.reason ?? ''}:${net.message ?? ''}`;
  return out;
}

function serviceState(svc: V1Service, lbIPs: Set<string>, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const name = svc.metadata?.name ?? '?';
  out.finalizers = [...(svc.metadata?.finalizers ?? [])].sort().join(',');
  flatten('annotations', sortedEntries(svc.metadata?.annotations), out);
  const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => {
    if (i.ip) {
      if (!/^198\.18\.\d+\.\d+$/.test(i.ip))
        problems.push(`service ${name}: ingress IP ${i.ip} is not a fakebench address`);
      if (lbIPs.has(i.ip)) problems.push(`service ${name}: ingress IP ${i.ip} is used twice`);
      lbIPs.add(i.ip);
    }
    return `ip=${i.ip ? '<lb-ip>' : ''},hostname=${i.hostname ?? ''},ipMode=${i.ipMode ?? ''},ports=${JSON.stringify(i.ports ?? [])}`;
  });
  out.ingress = ingress.join(';');
  out.conditions = (svc.status?.conditions ?? []).map((c) => `${c.type}=${c.status}:${c.reason}`).join(',');
  return out;
}

/** Lists the benchmark's Nodes and Services and normalizes them. `problems` collects invariant violations. */
export async function dumpState(kc: KubeConfig): Promise<{ dump: StateDump; problems: string[] }> {
  const core = kc.makeApiClient(CoreV1Api);
  const [nodes, services] = await Promise.all([
    core.listNode({ labelSelector: BENCH_LABEL }),
    core.listNamespacedService({ namespace: BENCH_NAMESPACE, labelSelector: BENCH_LABEL }),
  ]);
  const dump: StateDump = {};
  const problems: string[] = [];
  const lbIPs = new Set<string>();
  for (const n of nodes.items) dump[`node/${n.metadata?.name}`] = nodeState(n);
  for (const s of services.items) dump[`service/${s.metadata?.name}`] = serviceState(s, lbIPs, problems);
  return { dump, problems };
}

/** One kind of difference between two dumps, with how many objects show it and an example. */
export interface ParityDifference {
  /** `node.<field path>` or `service.<field path>`, or `node (missing)`. */
  field: string;
  objects: number;
  example: string;
}

/** Differences between dump `a` (labelled `la`) and dump `b` (labelled `lb`), grouped by field. */
export function diffStates(a: StateDump, b: StateDump, la: string, lb: string): ParityDifference[] {
  const groups = new Map<string, ParityDifference>();
  const add = (field: string, example: string) => {
    const g = groups.get(field);
    if (g) g.objects++;
    else groups.set(field, { field, objects: 1, example });
  };
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const kind = key.split('/')[0]!;
    const x = a[key];
    const y = b[key];
    if (!x || !y) {
      add(`${kind} (missing)`, `${key} only in ${x ? la : lb}`);
      continue;
    }
    for (const f of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (x[f] !== y[f])
        add(`${kind}.${f}`, `${key}: ${la}=${JSON.stringify(x[f] ?? null)} ${lb}=${JSON.stringify(y[f] ?? null)}`);
    }
  }
  return [...groups.values()].sort((p, q) => p.field.localeCompare(q.field));
}
