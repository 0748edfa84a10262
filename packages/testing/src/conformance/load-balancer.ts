/**
 * LoadBalancer checks (upstream `cloud.go` `LoadBalancer`; upstream `k8s.io/cloud-provider controllers/service/controller.go`; upstream quirks 6-7 in docs/upstream-quirks.md;
 * and the failures real CCMs shipped: leaked load balancers, stuck deletes, duplicate creates).
 *
 * `ensureLoadBalancer` is retried while it throws `RetryError`, as the service controller does (bounded by
 * `timeouts.ensureMs`, each wait capped at `timeouts.retryCapMs`). Every Service a check ensured is deleted
 * again when the check ends (best effort), so a run against a real cloud does not leave load balancers.
 */
import {
  findError,
  ImplementedElsewhereError,
  isMalformedLoadBalancerRecord,
  type ListedLoadBalancer,
  type OwnedLoadBalancer,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { RetryDeadlineError, retryWhileRetryError } from './retry.js';
import { ingressKey, statusProblems } from './validate.js';
import { describeError, show } from './violation.js';

export function svcName(service: V1Service): string {
  return `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
}

/** The load-balancer operations of one check, with failures turned into violations (also used by `capabilities.ts`). */
export class LoadBalancerDriver {
  readonly #ctx: CheckContext;
  readonly ensured = new Set<V1Service>();

  constructor(ctx: CheckContext) {
    this.#ctx = ctx;
  }

  get #lb() {
    return this.#ctx.facet('loadBalancer');
  }

  /** `ensureLoadBalancer`, retried on RetryError; the status must have a valid ingress. */
  async ensure(service: V1Service, nodes: V1Node[] = this.#ctx.lbNodes()): Promise<V1LoadBalancerStatus> {
    const ctx: CheckContext = this.#ctx;
    const label = `ensureLoadBalancer(${svcName(service)})`;
    this.ensured.add(service);
    let status: V1LoadBalancerStatus;
    try {
      ({ value: status } = await retryWhileRetryError(
        async () => {
          const r = await ctx.attempt(label, () =>
            this.#lb.ensureLoadBalancer(ctx.clusterName, service, nodes, ctx.signal),
          );
          if (!r.ok) throw r.error;
          return r.value;
        },
        { deadlineMs: ctx.timeouts.ensureMs, capMs: ctx.timeouts.retryCapMs },
      ));
    } catch (err) {
      if (err instanceof RetryDeadlineError) {
        ctx.fail(`${label} ${err.message}; raise timeouts.ensureMs if provisioning is slower`, err);
      }
      if (findError(err, ImplementedElsewhereError)) {
        ctx.fail(
          `${label} threw ImplementedElsewhereError; give the suite a Service your provider serves (loadBalancer.service)`,
          err,
        );
      }
      ctx.fail(`${label} rejected: ${describeError(err)}`, err);
    }
    const problems = statusProblems(status);
    ctx.require(problems.length === 0, `${label}: ${problems.join('; ')} (got ${show(status)})`);
    return status;
  }

  /** `getLoadBalancer`, which must succeed. */
  get(service: V1Service, when = ''): Promise<V1LoadBalancerStatus | undefined> {
    const ctx: CheckContext = this.#ctx;
    return ctx.call(`getLoadBalancer(${svcName(service)})${when}`, () =>
      this.#lb.getLoadBalancer(ctx.clusterName, service, ctx.signal),
    );
  }

  /** `getLoadBalancer` must report the load balancer, with the same ingress as `status`. */
  async expectReported(service: V1Service, status: V1LoadBalancerStatus, when = ''): Promise<void> {
    const got = await this.get(service, when);
    this.#ctx.require(
      got !== undefined && got !== null,
      `getLoadBalancer(${svcName(service)})${when} resolved undefined, but ensureLoadBalancer returned ${show(status)}`,
    );
    this.#ctx.require(
      ingressKey(got) === ingressKey(status),
      `getLoadBalancer(${svcName(service)})${when} reports ingress ${show(got.ingress)}, ensureLoadBalancer returned ${show(status.ingress)}`,
    );
  }

  /** `getLoadBalancer` must report nothing. */
  async expectGone(service: V1Service, when: string): Promise<void> {
    const got = await this.get(service, when);
    this.#ctx.require(
      got === undefined || got === null,
      `getLoadBalancer(${svcName(service)}) resolved ${show(got)} ${when}; expected undefined`,
    );
  }

  /** `ensureLoadBalancerDeleted` as an outcome; an ImplementedElsewhereError fails the check. */
  async tryDelete(service: V1Service, when = '') {
    const ctx: CheckContext = this.#ctx;
    const r = await ctx.attempt(`ensureLoadBalancerDeleted(${svcName(service)})${when}`, () =>
      this.#lb.ensureLoadBalancerDeleted(ctx.clusterName, service, ctx.signal),
    );
    if (!r.ok && findError(r.error, ImplementedElsewhereError)) {
      ctx.fail(
        `ensureLoadBalancerDeleted(${svcName(service)})${when} threw ImplementedElsewhereError; deletion must never be refused (the finalizer would stay forever)`,
        r.error,
      );
    }
    return r;
  }

  /** `ensureLoadBalancerDeleted`, which must succeed. */
  async delete(service: V1Service, when = ''): Promise<void> {
    const r = await this.tryDelete(service, when);
    if (!r.ok) {
      this.#ctx.fail(
        `ensureLoadBalancerDeleted(${svcName(service)})${when} rejected: ${describeError(r.error)}`,
        r.error,
      );
    }
  }

  /** The cloud's own list of load balancers (fixture `listCloudLoadBalancers`), or `undefined` without one. */
  async cloudList(): Promise<readonly string[] | undefined> {
    const list = this.#ctx.fixture.listCloudLoadBalancers;
    if (list === undefined) return undefined;
    const ids = await list();
    this.#ctx.require(Array.isArray(ids), `listCloudLoadBalancers() returned ${show(ids)}, not an array`);
    return ids;
  }

  /** With `listCloudLoadBalancers`: the cloud holds `baseline` plus exactly `extra` load balancers. */
  async expectCloudCount(baseline: readonly string[] | undefined, extra: number, what: string): Promise<void> {
    if (baseline === undefined) return;
    const now = (await this.cloudList()) ?? [];
    const added = now.filter((id) => !baseline.includes(id));
    const removed = baseline.filter((id) => !now.includes(id));
    this.#ctx.require(
      added.length === extra && removed.length === 0,
      `${what}: the cloud should hold ${extra} load balancer(s) beyond the ${baseline.length} it had, but it added ${show(added)}` +
        (removed.length ? ` and lost ${show(removed)}` : ''),
    );
  }

  /** Every page of `listLoadBalancers`, which must succeed and end (at most 1,000 pages, no token twice). */
  async listOwned(when: string): Promise<ListedLoadBalancer[]> {
    const ctx: CheckContext = this.#ctx;
    const list = this.#lb.listLoadBalancers!.bind(this.#lb);
    const out: ListedLoadBalancer[] = [];
    const tokens = new Set<string>();
    let pageToken: string | undefined;
    for (let page = 1; page <= 1000; page++) {
      const opts = pageToken === undefined ? { signal: ctx.signal } : { signal: ctx.signal, pageToken };
      const result = await ctx.call(`listLoadBalancers page ${page}${when}`, () => list(ctx.clusterName, opts));
      ctx.require(
        Array.isArray(result?.loadBalancers),
        `listLoadBalancers page ${page}${when} resolved ${show(result)}; expected { loadBalancers: [...] }`,
      );
      out.push(...result.loadBalancers);
      const next = result.nextPageToken;
      if (next === undefined || next === '') return out;
      ctx.require(!tokens.has(next), `listLoadBalancers${when} returned page token ${show(next)} twice`);
      tokens.add(next);
      pageToken = next;
    }
    return ctx.fail(`listLoadBalancers${when} did not end within 1000 pages`);
  }

  /** The entries of a listing recorded for `service`'s UID (malformed entries never match). */
  static entriesFor(entries: readonly ListedLoadBalancer[], service: V1Service): OwnedLoadBalancer[] {
    return entries.filter(
      (e): e is OwnedLoadBalancer => !isMalformedLoadBalancerRecord(e) && e.service?.uid === service.metadata?.uid,
    );
  }

  /** Best-effort deletion of everything this check ensured. */
  async cleanup(): Promise<void> {
    for (const service of this.ensured) {
      await this.#lb.ensureLoadBalancerDeleted(this.#ctx.clusterName, service).catch(() => undefined);
    }
  }
}

export function lbCheck(
  id: string,
  title: string,
  body: (ctx: CheckContext, lb: LoadBalancerDriver) => Promise<void>,
  settle = false,
): CheckSpec {
  return {
    id: `loadBalancer/${id}`,
    facet: 'loadBalancer',
    title,
    settle,
    async run(ctx: CheckContext) {
      const driver = new LoadBalancerDriver(ctx);
      try {
        await body(ctx, driver);
      } finally {
        if (ctx.broken) await ctx.healCloud().catch(() => undefined);
        await driver.cleanup();
      }
    },
  };
}

/** The LoadBalancer checks for a provider implementing the facet. */
export function loadBalancerChecks(probe: ProviderProbe): CheckSpec[] {
  const leak = probe.listsLoadBalancers ? ' (and the cloud holds exactly one)' : '';
  const checks: CheckSpec[] = [
    lbCheck(
      'name',
      'getLoadBalancerName is non-empty, stable, and differs between Services',
      async (ctx: CheckContext) => {
        const lb = ctx.facet('loadBalancer');
        const a = await ctx.newService();
        const b = await ctx.newService();
        const name = lb.getLoadBalancerName(ctx.clusterName, a);
        ctx.require(
          typeof name === 'string' && name !== '',
          `getLoadBalancerName(${svcName(a)}) returned ${show(name)}`,
        );
        const again = lb.getLoadBalancerName(ctx.clusterName, a);
        ctx.require(
          again === name,
          `getLoadBalancerName(${svcName(a)}) changed between calls: ${show(name)} then ${show(again)}`,
        );
        const other = lb.getLoadBalancerName(ctx.clusterName, b);
        ctx.require(
          other !== name,
          `two Services (UIDs ${a.metadata?.uid}, ${b.metadata?.uid}) got the same name ${show(name)}`,
        );
      },
    ),
    lbCheck(
      'get-unknown',
      'getLoadBalancer reports nothing for a Service that never had a load balancer',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        await lb.expectGone(await ctx.newService(), 'for a Service that never had one');
      },
    ),
    lbCheck(
      'delete-unknown',
      'ensureLoadBalancerDeleted succeeds for a Service that never had a load balancer',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        await lb.delete(await ctx.newService(), ' (never created)');
      },
    ),
    lbCheck(
      'ensure',
      `ensureLoadBalancer returns an ingress that getLoadBalancer reports${leak}`,
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        const status = await lb.ensure(svc);
        await lb.expectReported(svc, status);
        await lb.expectCloudCount(baseline, 1, 'after one ensureLoadBalancer');
      },
    ),
    lbCheck(
      'ensure-twice',
      `a second ensureLoadBalancer keeps the same ingress${leak}`,
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        const first = await lb.ensure(svc);
        const second = await lb.ensure(svc);
        ctx.require(
          ingressKey(second) === ingressKey(first),
          `the second ensureLoadBalancer returned ingress ${show(second.ingress)}, the first ${show(first.ingress)}`,
        );
        await lb.expectCloudCount(baseline, 1, 'after two ensureLoadBalancer calls');
      },
    ),
    lbCheck(
      'ensure-concurrent',
      `concurrent ensureLoadBalancer calls for one Service agree${leak ? ' and create one load balancer' : ''}`,
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        const [a, b] = await Promise.all([lb.ensure(svc), lb.ensure(svc)]);
        ctx.require(
          ingressKey(a) === ingressKey(b),
          `two concurrent ensureLoadBalancer calls returned different ingress: ${show(a.ingress)} and ${show(b.ingress)}`,
        );
        await lb.expectReported(svc, a);
        await lb.expectCloudCount(baseline, 1, 'after two concurrent ensureLoadBalancer calls');
      },
    ),
    lbCheck(
      'update',
      'updateLoadBalancer with fewer nodes succeeds and keeps the ingress',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const svc = await ctx.newService();
        const nodes = ctx.lbNodes();
        const status = await lb.ensure(svc, nodes);
        const fewer = nodes.slice(1);
        const facet = ctx.facet('loadBalancer');
        await ctx.call(`updateLoadBalancer(${svcName(svc)}, ${fewer.length} of ${nodes.length} nodes)`, () =>
          facet.updateLoadBalancer(ctx.clusterName, svc, fewer, ctx.signal),
        );
        await lb.expectReported(svc, status, ' after updateLoadBalancer');
        await ctx.call(`updateLoadBalancer(${svcName(svc)}, all ${nodes.length} nodes)`, () =>
          facet.updateLoadBalancer(ctx.clusterName, svc, nodes, ctx.signal),
        );
        await lb.expectReported(svc, status, ' after updateLoadBalancer');
      },
    ),
    lbCheck(
      'delete',
      `ensureLoadBalancerDeleted removes the load balancer${probe.listsLoadBalancers ? ' from the cloud' : ''}, and a second delete succeeds`,
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        await lb.ensure(svc);
        await lb.delete(svc);
        await lb.expectGone(svc, 'after ensureLoadBalancerDeleted');
        await lb.expectCloudCount(baseline, 0, 'after ensureLoadBalancerDeleted');
        await lb.delete(svc, ' (second time)');
        await lb.expectGone(svc, 'after a second ensureLoadBalancerDeleted');
      },
    ),
    lbCheck(
      'independent',
      "deleting one Service's load balancer leaves another Service's in place",
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const a = await ctx.newService();
        const b = await ctx.newService();
        await lb.ensure(a);
        const statusB = await lb.ensure(b);
        await lb.expectCloudCount(baseline, 2, 'after ensuring two Services');
        await lb.delete(a);
        await lb.expectGone(a, 'after ensureLoadBalancerDeleted');
        await lb.expectReported(b, statusB, ` after deleting ${svcName(a)}'s`);
        await lb.expectCloudCount(baseline, 1, "after deleting one Service's load balancer");
      },
    ),
  ];
  if (probe.listsOwnedLoadBalancers) checks.push(...listingChecks());
  if (probe.outage.has('loadBalancer')) checks.push(...outageChecks());
  if (probe.abortSignals) checks.push(abortCheck(probe));
  return checks;
}

/** The optional `listLoadBalancers` (what `service-lb-gc-controller` relies on). */
function listingChecks(): CheckSpec[] {
  return [
    lbCheck(
      'list',
      "listLoadBalancers lists a load balancer made by ensureLoadBalancer with its Service's namespace, name and UID, and not once deleted",
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const svc = await ctx.newService();
        await lb.ensure(svc);
        const listed = LoadBalancerDriver.entriesFor(await lb.listOwned(' after ensureLoadBalancer'), svc);
        ctx.require(
          listed.length === 1,
          `listLoadBalancers lists ${listed.length} load balancer(s) recorded for ${svcName(svc)} (UID ${svc.metadata?.uid}) after ensureLoadBalancer; expected 1`,
        );
        const [entry] = listed;
        ctx.require(
          typeof entry!.name === 'string' && entry!.name !== '',
          `listLoadBalancers lists the load balancer of ${svcName(svc)} with name ${show(entry!.name)}`,
        );
        ctx.require(
          entry!.service.namespace === svc.metadata?.namespace && entry!.service.name === svc.metadata?.name,
          `listLoadBalancers records Service ${show(entry!.service)} for ${svcName(svc)} (UID ${svc.metadata?.uid})`,
        );
        await lb.delete(svc);
        const after = LoadBalancerDriver.entriesFor(await lb.listOwned(' after ensureLoadBalancerDeleted'), svc);
        ctx.require(
          after.length === 0,
          `listLoadBalancers still lists ${show(after.map((e) => e.name))} for ${svcName(svc)} after ensureLoadBalancerDeleted`,
        );
      },
    ),
    lbCheck(
      'list-rebuilt-delete',
      'ensureLoadBalancerDeleted with a Service rebuilt from a listed record (namespace, name, uid, type) deletes that load balancer',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const svc = await ctx.newService();
        await lb.ensure(svc);
        const [entry] = LoadBalancerDriver.entriesFor(await lb.listOwned(' after ensureLoadBalancer'), svc);
        ctx.require(entry !== undefined, `listLoadBalancers does not list the load balancer of ${svcName(svc)}`);
        const rebuilt: V1Service = {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { ...entry.service },
          spec: { type: 'LoadBalancer' },
        };
        await lb.delete(rebuilt, ' (Service rebuilt from the listing)');
        await lb.expectGone(svc, 'after ensureLoadBalancerDeleted with the rebuilt Service');
        const after = LoadBalancerDriver.entriesFor(await lb.listOwned(' after the delete'), svc);
        ctx.require(
          after.length === 0,
          `listLoadBalancers still lists ${show(after.map((e) => e.name))} after ensureLoadBalancerDeleted with the rebuilt Service`,
        );
      },
    ),
  ];
}

function outageChecks(): CheckSpec[] {
  return [
    lbCheck(
      'outage-ensure',
      'ensureLoadBalancer rejects during a cloud outage and leaves nothing behind once healed',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        await ctx.breakCloud();
        const label = `ensureLoadBalancer(${svcName(svc)}) during the outage`;
        lb.ensured.add(svc);
        const r = await ctx.attempt(label, () =>
          ctx.facet('loadBalancer').ensureLoadBalancer(ctx.clusterName, svc, ctx.lbNodes(), ctx.signal),
        );
        ctx.require(
          !r.ok,
          `${label} resolved ${show(r.ok && r.value)} while the cloud API was failing; it must reject`,
        );
        await ctx.healCloud();
        const status = await lb.ensure(svc);
        await lb.expectReported(svc, status, ' after the outage');
        await lb.expectCloudCount(baseline, 1, 'after a failed and a successful ensureLoadBalancer');
        await lb.delete(svc);
        await lb.expectGone(svc, 'after ensureLoadBalancerDeleted');
        await lb.expectCloudCount(baseline, 0, 'after ensureLoadBalancerDeleted');
      },
    ),
    lbCheck(
      'outage-get',
      'getLoadBalancer never reports an existing load balancer as gone during a cloud outage',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const svc = await ctx.newService();
        await lb.ensure(svc);
        await ctx.breakCloud();
        const r = await ctx.attempt(`getLoadBalancer(${svcName(svc)}) during the outage`, () =>
          ctx.facet('loadBalancer').getLoadBalancer(ctx.clusterName, svc, ctx.signal),
        );
        ctx.require(
          !r.ok || (r.value !== undefined && r.value !== null),
          `getLoadBalancer(${svcName(svc)}) resolved undefined while the cloud API was failing; the service controller then skips the delete and removes the finalizer, leaking the load balancer — reject instead`,
        );
      },
    ),
    lbCheck(
      'outage-delete',
      'ensureLoadBalancerDeleted during a cloud outage never claims success while the load balancer remains',
      async (ctx: CheckContext, lb: LoadBalancerDriver) => {
        const baseline = await lb.cloudList();
        const svc = await ctx.newService();
        await lb.ensure(svc);
        await ctx.breakCloud();
        const r = await lb.tryDelete(svc, ' during the outage');
        await ctx.healCloud();
        if (r.ok) {
          const left = await lb.get(svc, ' after the outage');
          ctx.require(
            left === undefined || left === null,
            `ensureLoadBalancerDeleted(${svcName(svc)}) resolved during the outage, but after healing getLoadBalancer still reports ${show(left)}: the finalizer would be removed and the load balancer leaked`,
          );
          await lb.expectCloudCount(baseline, 0, 'after a delete that succeeded during the outage');
          return;
        }
        await lb.delete(svc, ' after the outage');
        await lb.expectGone(svc, 'after ensureLoadBalancerDeleted');
        await lb.expectCloudCount(baseline, 0, 'after ensureLoadBalancerDeleted');
      },
    ),
  ];
}

function abortCheck(probe: ProviderProbe): CheckSpec {
  return lbCheck(
    'abort',
    'calls with an already-aborted AbortSignal reject and change nothing',
    async (ctx: CheckContext, lb: LoadBalancerDriver) => {
      const facet = ctx.facet('loadBalancer');
      const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
      const svc = await ctx.newService();
      const status = await lb.ensure(svc);
      const baseline = await lb.cloudList();
      const fresh = await ctx.newService();
      lb.ensured.add(fresh);
      const calls = {
        getLoadBalancer: () => facet.getLoadBalancer(ctx.clusterName, svc, aborted),
        updateLoadBalancer: () => facet.updateLoadBalancer(ctx.clusterName, svc, ctx.lbNodes(), aborted),
        ensureLoadBalancerDeleted: () => facet.ensureLoadBalancerDeleted(ctx.clusterName, svc, aborted),
        'ensureLoadBalancer (new Service)': () =>
          facet.ensureLoadBalancer(ctx.clusterName, fresh, ctx.lbNodes(), aborted),
      };
      for (const [method, fn] of Object.entries(calls)) {
        const r = await ctx.attempt(`${method} with an aborted signal`, fn as () => Promise<unknown>);
        ctx.require(!r.ok, `${method} resolved ${show(r.ok && r.value)} with an already-aborted signal; reject`);
      }
      await lb.expectReported(svc, status, ' after an aborted ensureLoadBalancerDeleted');
      await lb.expectGone(fresh, 'after an aborted ensureLoadBalancer');
      if (probe.listsLoadBalancers) await lb.expectCloudCount(baseline, 0, 'after aborted calls');
    },
    true,
  );
}
