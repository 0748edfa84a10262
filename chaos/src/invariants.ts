/**
 * The invariants a run checks, and the figures it reports.
 *
 * Converged state (checked repeatedly while the run settles): every LoadBalancer Service of the default class
 * has exactly one load balancer and an ingress, except one asking for source ranges, which mockcloud does not
 * enforce: the service controller refuses it, so it has no load balancer, ingress or finalizer (decision 0205); no load balancer exists for anything else (leaked); no Service
 * keeps the cleanup finalizer without needing it; every Node is initialized; shutdown taints match the
 * machines; every NotReady Node whose machine is gone is deleted; with node IPAM (`--ipam`), every Node has a
 * Pod CIDR inside the cluster CIDR and no CIDR is on two Nodes.
 *
 * Safety (checked over the whole run): no Node deleted by a CCM while its machine existed (from the audit log);
 * no cloud call and no API write (Leases and Events aside) from a process that did not hold the lease at that
 * moment (from the cloud's request log, the audit log and the lease history); no load-balancer call of a CCM on a
 * group while another of its calls on the group was in flight (load-balancer groups, docs/decisions/0207).
 */
import { readFile } from 'node:fs/promises';
import type { MockCloudApiServer, RequestLogEntry } from '@ccm-kit/example-mockcloud/api-server';
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { Fleet } from './fleet.ts';
import { LeaseHistory, type Term } from './lease-history.ts';
import { NAMESPACE, type Workload } from './workload.ts';

const LABEL_SERVICE_UID = 'mockcloud.ccm-kit.io/service-uid';
const FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
/** The cluster CIDR of runs with node IPAM: 256 /24 blocks, far more than a run registers Nodes. */
const IPAM_CLUSTER_CIDR = '10.244.0.0/16';

/** The CCM flags of a run with node IPAM (node-ipam-controller is added to `--controllers` by the run). */
export const ipamFlags: readonly string[] = ['--allocate-node-cidrs=true', `--cluster-cidr=${IPAM_CLUSTER_CIDR}`];

export interface Violation {
  invariant: string;
  /** The object concerned (Service or Node name), for the operations that led there. */
  object: string;
  detail: string;
  /** Epoch ms of the offending call or write, for safety violations. */
  t?: number;
}

export interface Converged {
  ok: boolean;
  violations: Violation[];
  leakedLoadBalancers: number;
  /** Leaked load balancers whose recorded Service UID no Service has (what service-lb-gc-controller collects). */
  orphanedLoadBalancers: number;
  loadBalancerServices: number;
  nodes: number;
  /** Services of another class that keep the cleanup finalizer without a load balancer of ours (decision 0051). */
  finalizersOfOtherClass: string[];
  /** LoadBalancer Services refused for their source ranges (decision 0205). */
  refusedServices: number;
  /** With node IPAM: Nodes that have a Pod CIDR. */
  allocatedNodes?: number;
}

export async function checkConverged(
  kc: KubeConfig,
  cloud: MockCloudApiServer,
  workload: Workload,
  options: { ipam: boolean } = { ipam: false },
): Promise<Converged> {
  const core = kc.makeApiClient(CoreV1Api);
  const violations: Violation[] = [];
  const services = (await core.listNamespacedService({ namespace: NAMESPACE })).items;
  const lbs = cloud.state.listLoadBalancers();
  const byUid = new Map<string, number>();
  for (const lb of lbs) {
    const uid = lb.labels[LABEL_SERVICE_UID] ?? '';
    byUid.set(uid, (byUid.get(uid) ?? 0) + 1);
  }
  const wanted = new Set<string>();
  const refused = new Set<string>();
  const finalizersOfOtherClass: string[] = [];
  for (const s of services) {
    const name = s.metadata?.name ?? '';
    const uid = s.metadata?.uid ?? '';
    const deleting = s.metadata?.deletionTimestamp !== undefined;
    const needsLb = !deleting && s.spec?.type === 'LoadBalancer' && !s.spec.loadBalancerClass;
    const count = byUid.get(uid) ?? 0;
    if (needsLb && (s.spec?.loadBalancerSourceRanges?.length ?? 0) > 0) {
      refused.add(uid);
      const kept = [
        count ? `${count} load balancers` : '',
        s.status?.loadBalancer?.ingress?.length ? 'an ingress' : '',
        s.metadata?.finalizers?.includes(FINALIZER) ? 'the cleanup finalizer' : '',
      ].filter(Boolean);
      if (kept.length)
        violations.push({ invariant: 'no load balancer for a refused Service', object: name, detail: kept.join(', ') });
    } else if (needsLb) {
      wanted.add(uid);
      if (count !== 1)
        violations.push({
          invariant: 'one load balancer per LoadBalancer Service',
          object: name,
          detail: `${count} load balancers`,
        });
      if (!s.status?.loadBalancer?.ingress?.length)
        violations.push({ invariant: 'ingress in status', object: name, detail: 'no ingress' });
    } else if (s.metadata?.finalizers?.includes(FINALIZER)) {
      const detail = `type ${s.spec?.type}, class ${s.spec?.loadBalancerClass ?? '-'}`;
      // docs/decisions/0051: a LoadBalancer Service of another class with no load balancer of ours keeps the
      // finalizer on purpose (it may be that class's controller's); reported apart, not a violation.
      if (!deleting && s.spec?.type === 'LoadBalancer' && s.spec.loadBalancerClass && count === 0)
        finalizersOfOtherClass.push(name);
      else violations.push({ invariant: 'no stale cleanup finalizer', object: name, detail });
    }
  }
  let leaked = 0;
  let orphaned = 0;
  const existing = new Set(services.map((s) => s.metadata?.uid ?? ''));
  for (const lb of lbs) {
    const uid = lb.labels[LABEL_SERVICE_UID] ?? '';
    if (wanted.has(uid) || refused.has(uid)) continue;
    leaked++;
    if (!existing.has(uid)) orphaned++;
    const svc = lb.labels['mockcloud.ccm-kit.io/service-name'] ?? lb.name;
    violations.push({ invariant: 'no leaked load balancer', object: svc, detail: `${lb.id} (${lb.name})` });
  }
  const nodes = (await core.listNode()).items;
  const nodeNames = new Set(nodes.map((n) => n.metadata?.name ?? ''));
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    const m = workload.machines.get(name);
    const taints = n.spec?.taints ?? [];
    if (!n.spec?.providerID || taints.some((t) => t.key === UNINITIALIZED)) {
      if (m?.state !== 'deleted')
        violations.push({
          invariant: 'every Node initialized',
          object: name,
          detail: `providerID ${n.spec?.providerID ?? '-'}`,
        });
    }
    const shutdown = taints.some((t) => t.key === SHUTDOWN);
    if (m?.state === 'off' && !shutdown)
      violations.push({ invariant: 'shutdown taint on stopped machines', object: name, detail: 'missing' });
    if (m?.state === 'running' && shutdown)
      violations.push({ invariant: 'no shutdown taint on running machines', object: name, detail: 'present' });
  }
  const allocated = options.ipam ? podCIDRViolations(nodes, violations) : undefined;
  for (const m of workload.machines.values()) {
    if (m.state === 'deleted' && !m.nodeDeleted && nodeNames.has(m.name))
      violations.push({
        invariant: 'Node of a deleted machine is deleted',
        object: m.name,
        detail: 'Node still exists',
      });
  }
  return {
    ok: violations.length === 0,
    violations,
    leakedLoadBalancers: leaked,
    orphanedLoadBalancers: orphaned,
    loadBalancerServices: wanted.size,
    nodes: nodes.length,
    finalizersOfOtherClass,
    refusedServices: refused.size,
    ...(allocated !== undefined ? { allocatedNodes: allocated } : {}),
  };
}

/**
 * Node IPAM's invariants over the Nodes: every Node has one Pod CIDR, inside the cluster CIDR (`spec.podCIDR`
 * its first); no CIDR is on two Nodes. Pushes the violations; returns how many Nodes have a CIDR.
 */
function podCIDRViolations(nodes: readonly V1Node[], violations: Violation[]): number {
  const holder = new Map<string, string>();
  let allocated = 0;
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    const cidrs = n.spec?.podCIDRs ?? [];
    if (cidrs.length === 0) {
      violations.push({ invariant: 'every Node allocated a Pod CIDR', object: name, detail: 'no podCIDRs' });
      continue;
    }
    allocated++;
    for (const c of cidrs) {
      if (!c.startsWith('10.244.') || n.spec?.podCIDR !== cidrs[0])
        violations.push({
          invariant: 'every Node allocated a Pod CIDR',
          object: name,
          detail: `podCIDRs ${cidrs.join(',')}`,
        });
      const other = holder.get(c);
      if (other !== undefined)
        violations.push({ invariant: 'no Pod CIDR on two Nodes', object: name, detail: `${c} is also on ${other}` });
      holder.set(c, name);
    }
  }
  return allocated;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; name?: string; namespace?: string };
  requestReceivedTimestamp?: string;
  responseStatus?: { code?: number };
}

export interface Safety {
  violations: Violation[];
  wronglyDeletedNodes: number;
  nodesDeletedByCcm: number;
  nonHolderCloudCalls: number;
  nonHolderApiWrites: number;
  cloudCalls: number;
  cloudCallsFailed: number;
  /** Load-balancer calls of one caller on one group that began while another was in flight (must be 0). */
  groupOverlaps: number;
  /** Load-balancer calls checked for overlaps. */
  groupCalls: number;
  startupCloudCalls: number;
  apiWritesByCcms: number;
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** A create, change, delete or read by ID of one load balancer (not a listing). */
const LOAD_BALANCER_CALL = /^\/v1\/load_balancers(\/[^/?]+)?(\?|$)/;

/**
 * Load-balancer calls that overlap on one group, measured at the cloud (the request log's arrival and answer
 * times). The CCMs run mockcloud with `loadBalancer.groupBy: namespace` and every chaos Service is in one
 * namespace, so all of one caller's calls on single load balancers are one group: each must begin after the
 * previous one was answered. Listings (`GET /v1/load_balancers?…`, the orphan collector's and the lookups by label)
 * are reads of no one group and are left out; calls of different callers are separated by the lease (checked above).
 */
export function groupOverlaps(calls: readonly RequestLogEntry[]): { found: RequestLogEntry[]; checked: number } {
  const found: RequestLogEntry[] = [];
  const lastEnd = new Map<string, number>();
  let checked = 0;
  const single = calls
    .filter((c) => {
      const m = LOAD_BALANCER_CALL.exec(c.path);
      return m !== null && (c.method !== 'GET' || m[1] !== undefined) && c.caller !== undefined;
    })
    .sort((a, b) => a.time - b.time);
  for (const c of single) {
    checked++;
    const end = lastEnd.get(c.caller!) ?? -Infinity;
    if (c.time < end) found.push(c);
    lastEnd.set(c.caller!, Math.max(end, c.endTime ?? Infinity));
  }
  return { found, checked };
}

export async function checkSafety(opts: {
  auditLogPath: string;
  cloud: MockCloudApiServer;
  fleet: Fleet;
  terms: Term[];
  workload: Workload;
  slotOf: (name: string) => number | undefined;
}): Promise<Safety> {
  const violations: Violation[] = [];
  const { fleet, terms, slotOf } = opts;
  const actor = (slot: number, t: number) => {
    const p = fleet.processAt(slot, t);
    return { p, holder: p?.identity !== undefined && LeaseHistory.held(terms, p.identity, t) };
  };
  // Cloud calls.
  let nonHolderCloud = 0;
  let startup = 0;
  let failed = 0;
  const calls = opts.cloud.requests();
  for (const c of calls) {
    if (c.status === 0 || c.status >= 400) failed++;
    const slot = c.caller === undefined ? undefined : slotOf(c.caller);
    if (slot === undefined) continue;
    const { p, holder } = actor(slot, c.time);
    if (p && (p.campaigningAt === undefined || c.time < p.campaigningAt)) {
      startup++; // the provider's start-up check, on every replica before it campaigns
      continue;
    }
    if (!holder) {
      nonHolderCloud++;
      violations.push({
        invariant: 'no cloud call from a non-holder',
        object: c.path,
        detail: `${c.method} ${c.path} by ${c.caller} (${p?.identity ?? 'unknown process'}) at ${new Date(c.time).toISOString()}`,
        t: c.time,
      });
    }
  }
  // API writes and Node deletions (the audit log also holds the CCMs' lists and watches, for resync times).
  let nonHolderWrites = 0;
  let writes = 0;
  let wronglyDeleted = 0;
  let nodeDeletes = 0;
  const text = await readFile(opts.auditLogPath, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as AuditEvent;
    if (e.stage !== 'ResponseComplete' || !writeVerbs.has(e.verb ?? '')) continue;
    const slot = slotOf(e.user?.username ?? '');
    if (slot === undefined) continue;
    const resource = e.objectRef?.resource ?? '';
    if (resource === 'leases' || resource === 'events') continue;
    writes++;
    const t = new Date(e.requestReceivedTimestamp ?? 0).getTime();
    const { p, holder } = actor(slot, t);
    const what = `${e.verb} ${resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''} ${e.objectRef?.name ?? ''}`;
    if (!holder) {
      nonHolderWrites++;
      violations.push({
        invariant: 'no API write from a non-holder',
        object: e.objectRef?.name ?? '',
        detail: `${what} by ${e.user?.username} (${p?.identity ?? 'unknown process'}) at ${e.requestReceivedTimestamp}`,
        t,
      });
    }
    if (
      resource === 'nodes' &&
      e.verb === 'delete' &&
      !e.objectRef?.subresource &&
      (e.responseStatus?.code ?? 0) < 300
    ) {
      nodeDeletes++;
      const m = opts.workload.machines.get(e.objectRef?.name ?? '');
      if (!m || m.deletedAt === undefined || m.deletedAt > t) {
        wronglyDeleted++;
        violations.push({
          invariant: 'no Node deleted while its machine exists',
          object: e.objectRef?.name ?? '',
          detail: `${what} at ${e.requestReceivedTimestamp}`,
        });
      }
    }
  }
  const overlaps = groupOverlaps(calls);
  for (const o of overlaps.found) {
    violations.push({
      invariant: 'no overlapping load-balancer calls on one group',
      object: o.path,
      detail: `${o.method} ${o.path} by ${o.caller} at ${new Date(o.time).toISOString()} began while another load-balancer call of the group was in flight`,
      t: o.time,
    });
  }
  return {
    violations,
    groupOverlaps: overlaps.found.length,
    groupCalls: overlaps.checked,
    wronglyDeletedNodes: wronglyDeleted,
    nodesDeletedByCcm: nodeDeletes,
    nonHolderCloudCalls: nonHolderCloud,
    nonHolderApiWrites: nonHolderWrites,
    cloudCalls: calls.length,
    cloudCallsFailed: failed,
    startupCloudCalls: startup,
    apiWritesByCcms: writes,
  };
}
