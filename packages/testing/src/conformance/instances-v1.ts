/**
 * Instances (v1) and Zones checks (upstream `cloud.go` `Instances`, `Zones`;
 * upstream quirk 23 in docs/upstream-quirks.md). The node-lifecycle controller treats `false` from `instanceExistsByProviderID`, and an
 * `InstanceNotFoundError` from `instanceID`, as "delete the Node".
 */
import { isDeepStrictEqual } from 'node:util';
import { facetOf, findError, InstanceNotFoundError, NotImplementedError } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { fixtureNode, nodeLabel } from './instances.js';
import { addressProblems } from './validate.js';
import { describeError, show } from './violation.js';

/**
 * The providerID of `node`, as the cloud-node controller finds it (upstream `cloud-node-controller`
 * `getProviderID` / `GetInstanceProviderID`): its `spec.providerID`; else, with Instances,
 * `<providerName>://<instanceID(name)>`; else, with InstancesV2, `instanceMetadata(node).providerID`. Fails the
 * check, saying which, when none of these can give it.
 */
export async function providerIDOf(ctx: CheckContext, node: V1Node, role: string): Promise<string> {
  const own = node.spec?.providerID;
  if (own) return own;
  const name = node.metadata?.name ?? '';
  const instances = facetOf(ctx.cloud, 'instances');
  if (instances !== undefined) {
    const id = await ctx.call(`instanceID(${JSON.stringify(name)})`, () => instances.instanceID(name, ctx.signal));
    ctx.require(
      typeof id === 'string' && id !== '',
      `instanceID(${JSON.stringify(name)}) resolved ${show(id)}, expected an ID`,
    );
    return `${ctx.cloud.providerName()}://${id}`;
  }
  const v2 = facetOf(ctx.cloud, 'instancesV2');
  if (v2 === undefined) {
    ctx.fail(
      `${role} needs spec.providerID for these checks (the provider has neither Instances nor InstancesV2 to derive it from)`,
    );
  }
  const meta = await ctx.call(`instanceMetadata(${role} (${name}))`, () => v2.instanceMetadata(node, ctx.signal));
  const pid = meta?.providerID;
  ctx.require(
    typeof pid === 'string' && pid !== '',
    `instanceMetadata(${role} (${name})) gave no providerID (${show(pid)}); return one, or give ${role} spec.providerID`,
  );
  return pid;
}

const DELETES =
  'node-lifecycle deletes the Node on false (or on InstanceNotFoundError from instanceID); answer so only when the cloud confirms the machine is gone';

function nameOf(node: V1Node): string {
  return node.metadata?.name ?? '';
}

/** The Instances (v1) checks for a provider implementing the facet. */
export function instancesV1Checks(probe: ProviderProbe): CheckSpec[] {
  const checks: CheckSpec[] = [
    {
      id: 'instances/exists',
      facet: 'instances',
      title: `instanceExistsByProviderID is true for existingNode${probe.missingProviderID ? ' and false for missingNode' : ''}`,
      async run(ctx: CheckContext) {
        const i = ctx.facet('instances');
        const pid = await providerIDOf(ctx, fixtureNode(ctx, 'existingNode'), 'existingNode');
        const exists = await ctx.call(`instanceExistsByProviderID(${pid})`, () =>
          i.instanceExistsByProviderID(pid, ctx.signal),
        );
        ctx.require(exists === true, `instanceExistsByProviderID(${pid}) resolved ${show(exists)}, expected true`);
        const missingPID = fixtureNode(ctx, 'missingNode').spec?.providerID;
        if (missingPID) {
          const gone = await ctx.call(`instanceExistsByProviderID(${missingPID})`, () =>
            i.instanceExistsByProviderID(missingPID, ctx.signal),
          );
          ctx.require(
            gone === false,
            `instanceExistsByProviderID(${missingPID}) (missingNode) resolved ${show(gone)}, expected false`,
          );
        }
      },
    },
    {
      id: 'instances/instance-id',
      facet: 'instances',
      title: 'instanceID matches the providerID for existingNode and throws InstanceNotFoundError for missingNode',
      async run(ctx: CheckContext) {
        const i = ctx.facet('instances');
        const node = fixtureNode(ctx, 'existingNode');
        const id = await ctx.call(`instanceID(${JSON.stringify(nameOf(node))})`, () =>
          i.instanceID(nameOf(node), ctx.signal),
        );
        ctx.require(
          typeof id === 'string' && id !== '',
          `instanceID(existingNode) resolved ${show(id)}, expected an ID`,
        );
        const own = node.spec?.providerID;
        const derived = `${ctx.cloud.providerName()}://${id}`;
        ctx.require(
          !own || own === derived,
          `<providerName>://<instanceID> is ${JSON.stringify(derived)} but existingNode's providerID is ${JSON.stringify(own)}`,
        );
        const missing = fixtureNode(ctx, 'missingNode');
        const result = await ctx.attempt(`instanceID(${JSON.stringify(nameOf(missing))})`, () =>
          i.instanceID(nameOf(missing), ctx.signal),
        );
        ctx.require(
          !result.ok && result.error instanceof InstanceNotFoundError,
          `instanceID(missingNode ${JSON.stringify(nameOf(missing))}) ${result.ok ? `resolved ${show(result.value)}` : `rejected with ${describeError(result.error)}`}; expected an InstanceNotFoundError (itself, not wrapped: callers compare by class)`,
        );
      },
    },
    {
      id: 'instances/addresses',
      facet: 'instances',
      title: 'nodeAddresses and nodeAddressesByProviderID agree and are valid for existingNode',
      async run(ctx: CheckContext) {
        const i = ctx.facet('instances');
        const node = fixtureNode(ctx, 'existingNode');
        const pid = await providerIDOf(ctx, node, 'existingNode');
        const byID = await ctx.call(`nodeAddressesByProviderID(${pid})`, () =>
          i.nodeAddressesByProviderID(pid, ctx.signal),
        );
        const problems = addressProblems(byID);
        ctx.require(
          problems.length === 0,
          `nodeAddressesByProviderID(${pid}): ${problems.join('; ')} (got ${show(byID)})`,
        );
        const byName = await ctx.call(`nodeAddresses(${JSON.stringify(nameOf(node))})`, () =>
          i.nodeAddresses(nameOf(node), ctx.signal),
        );
        ctx.require(
          isDeepStrictEqual(byName, byID),
          `nodeAddresses(name) ${show(byName)} differs from nodeAddressesByProviderID ${show(byID)}`,
        );
      },
    },
    {
      id: 'instances/type',
      facet: 'instances',
      title: 'instanceType and instanceTypeByProviderID agree for existingNode',
      async run(ctx: CheckContext) {
        const i = ctx.facet('instances');
        const node = fixtureNode(ctx, 'existingNode');
        const pid = await providerIDOf(ctx, node, 'existingNode');
        const byID = await ctx.attempt(`instanceTypeByProviderID(${pid})`, () =>
          i.instanceTypeByProviderID(pid, ctx.signal),
        );
        const byName = await ctx.attempt(`instanceType(${nameOf(node)})`, () =>
          i.instanceType(nameOf(node), ctx.signal),
        );
        const notImplemented = (r: typeof byID) => !r.ok && findError(r.error, NotImplementedError) !== undefined;
        if (notImplemented(byID) && notImplemented(byName)) return;
        if (!byID.ok) ctx.fail(`instanceTypeByProviderID(${pid}) rejected: ${describeError(byID.error)}`, byID.error);
        if (!byName.ok)
          ctx.fail(`instanceType(${nameOf(node)}) rejected: ${describeError(byName.error)}`, byName.error);
        ctx.require(
          typeof byID.value === 'string',
          `instanceTypeByProviderID resolved ${show(byID.value)}, not a string`,
        );
        ctx.require(
          byID.value === byName.value,
          `instanceType(name) ${show(byName.value)} differs from instanceTypeByProviderID ${show(byID.value)}`,
        );
      },
    },
    {
      id: 'instances/shutdown',
      facet: 'instances',
      title: `instanceShutdownByProviderID is false for existingNode${probe.stoppedNode ? ', true for stoppedNode (which still exists)' : ''}`,
      async run(ctx: CheckContext) {
        const i = ctx.facet('instances');
        const pid = await providerIDOf(ctx, fixtureNode(ctx, 'existingNode'), 'existingNode');
        const down = await ctx.attempt(`instanceShutdownByProviderID(${pid})`, () =>
          i.instanceShutdownByProviderID(pid, ctx.signal),
        );
        const unsupported = !down.ok && findError(down.error, NotImplementedError) !== undefined;
        if (!unsupported) {
          if (!down.ok)
            ctx.fail(`instanceShutdownByProviderID(${pid}) rejected: ${describeError(down.error)}`, down.error);
          ctx.require(
            down.value === false,
            `instanceShutdownByProviderID(${pid}) resolved ${show(down.value)}, expected false`,
          );
        }
        if (!probe.stoppedNode) return;
        const spid = await providerIDOf(ctx, fixtureNode(ctx, 'stoppedNode'), 'stoppedNode');
        const exists = await ctx.call(`instanceExistsByProviderID(${spid})`, () =>
          i.instanceExistsByProviderID(spid, ctx.signal),
        );
        ctx.require(
          exists === true,
          `instanceExistsByProviderID(${spid}) (stoppedNode) resolved ${show(exists)}; ${DELETES}`,
        );
        if (unsupported) return;
        const stopped = await ctx.call(`instanceShutdownByProviderID(${spid})`, () =>
          i.instanceShutdownByProviderID(spid, ctx.signal),
        );
        ctx.require(
          stopped === true,
          `instanceShutdownByProviderID(${spid}) (stoppedNode) resolved ${show(stopped)}, expected true`,
        );
      },
    },
  ];
  if (probe.outage.has('instances')) checks.push(outageCheck(probe));
  if (probe.abortSignals) checks.push(abortCheck());
  return checks;
}

function outageCheck(probe: ProviderProbe): CheckSpec {
  return {
    id: 'instances/outage',
    facet: 'instances',
    title:
      'during a cloud outage instanceExistsByProviderID and instanceID reject (never false or InstanceNotFoundError)',
    async run(ctx: CheckContext) {
      const i = ctx.facet('instances');
      const existing = fixtureNode(ctx, 'existingNode');
      const missing = fixtureNode(ctx, 'missingNode');
      const pids = [await providerIDOf(ctx, existing, 'existingNode')];
      if (probe.missingProviderID && missing.spec?.providerID) pids.push(missing.spec.providerID);
      await ctx.breakCloud();
      for (const pid of pids) {
        const r = await ctx.attempt(`instanceExistsByProviderID(${pid})`, () =>
          i.instanceExistsByProviderID(pid, ctx.signal),
        );
        if (r.ok)
          ctx.fail(
            `instanceExistsByProviderID(${pid}) resolved ${show(r.value)} while the cloud API was failing; it must reject (${DELETES})`,
          );
      }
      for (const [node, role] of [
        [existing, 'existingNode'],
        [missing, 'missingNode'],
      ] as const) {
        const r = await ctx.attempt(`instanceID(${nodeLabel(node, role)})`, () =>
          i.instanceID(nameOf(node), ctx.signal),
        );
        if (r.ok)
          ctx.fail(
            `instanceID(${nodeLabel(node, role)}) resolved ${show(r.value)} while the cloud API was failing; it must reject`,
          );
        if (findError(r.error, InstanceNotFoundError)) {
          ctx.fail(
            `instanceID(${nodeLabel(node, role)}) rejected with InstanceNotFoundError while the cloud API was failing (${describeError(r.error)}); ${DELETES}`,
          );
        }
      }
      await ctx.healCloud();
      const back = await ctx.call(`instanceExistsByProviderID(${pids[0]}) after the outage`, () =>
        i.instanceExistsByProviderID(pids[0]!, ctx.signal),
      );
      ctx.require(
        back === true,
        `after the outage instanceExistsByProviderID(existingNode) resolved ${show(back)}, expected true`,
      );
    },
  };
}

function abortCheck(): CheckSpec {
  return {
    id: 'instances/abort',
    settle: true,
    facet: 'instances',
    title: 'calls with an already-aborted AbortSignal reject',
    async run(ctx: CheckContext) {
      const i = ctx.facet('instances');
      const node = fixtureNode(ctx, 'existingNode');
      const pid = await providerIDOf(ctx, node, 'existingNode');
      const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
      const calls = {
        instanceExistsByProviderID: () => i.instanceExistsByProviderID(pid, aborted),
        nodeAddressesByProviderID: () => i.nodeAddressesByProviderID(pid, aborted),
        instanceID: () => i.instanceID(nameOf(node), aborted),
      };
      for (const [method, fn] of Object.entries(calls)) {
        const r = await ctx.attempt(`${method}(existingNode, aborted signal)`, fn as () => Promise<unknown>);
        ctx.require(
          !r.ok,
          `${method}(existingNode) resolved ${show(r.ok && r.value)} with an already-aborted signal; reject`,
        );
      }
    },
  };
}

/** The Zones checks for a provider implementing the facet. */
export function zonesChecks(probe: ProviderProbe): CheckSpec[] {
  const checks: CheckSpec[] = [
    {
      id: 'zones/consistent',
      facet: 'zones',
      title: 'getZoneByProviderID and getZoneByNodeName agree for existingNode',
      async run(ctx: CheckContext) {
        const z = ctx.facet('zones');
        const node = fixtureNode(ctx, 'existingNode');
        const pid = await providerIDOf(ctx, node, 'existingNode');
        const byID = await ctx.call(`getZoneByProviderID(${pid})`, () => z.getZoneByProviderID(pid, ctx.signal));
        ctx.require(
          typeof byID?.failureDomain === 'string' && typeof byID.region === 'string',
          `getZoneByProviderID(${pid}) resolved ${show(byID)}; expected { failureDomain: string, region: string }`,
        );
        const byName = await ctx.call(`getZoneByNodeName(${nameOf(node)})`, () =>
          z.getZoneByNodeName(nameOf(node), ctx.signal),
        );
        ctx.require(
          byName?.failureDomain === byID.failureDomain && byName.region === byID.region,
          `getZoneByNodeName ${show(byName)} differs from getZoneByProviderID ${show(byID)}`,
        );
      },
    },
  ];
  if (probe.abortSignals) {
    checks.push({
      id: 'zones/abort',
      settle: true,
      facet: 'zones',
      title: 'calls with an already-aborted AbortSignal reject',
      async run(ctx: CheckContext) {
        const z = ctx.facet('zones');
        const node = fixtureNode(ctx, 'existingNode');
        const pid = await providerIDOf(ctx, node, 'existingNode');
        const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
        for (const [method, fn] of [
          ['getZoneByProviderID', () => z.getZoneByProviderID(pid, aborted)],
          ['getZoneByNodeName', () => z.getZoneByNodeName(nameOf(node), aborted)],
        ] as const) {
          const r = await ctx.attempt(`${method}(existingNode, aborted signal)`, fn);
          ctx.require(
            !r.ok,
            `${method}(existingNode) resolved ${show(r.ok && r.value)} with an already-aborted signal; reject`,
          );
        }
      },
    });
  }
  return checks;
}
