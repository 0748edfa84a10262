/**
 * InstancesV2 checks (upstream `cloud.go` `InstancesV2`; upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream `k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go`; upstream quirks 17 and 21 in docs/upstream-quirks.md).
 * The ones that matter most: `instanceExists` answers `false` only for a machine that is really gone
 * (node-lifecycle deletes a NotReady Node at once on `false`), and never during a cloud outage.
 */
import { isDeepStrictEqual } from 'node:util';
import { findError, type InstanceMetadata, InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { addressProblems, providerIDProblems } from './validate.js';
import { describeError, show } from './violation.js';

type NodeRole = 'existingNode' | 'missingNode' | 'stoppedNode';

/** The fixture's Node in `role` (the harness has checked that required ones are present). */
export function fixtureNode(ctx: CheckContext, role: NodeRole): V1Node {
  const node = ctx.fixture[role];
  if (node === undefined) ctx.fail(`the fixture has no ${role}`);
  return node;
}

/** `role (name[, providerID])`, for messages. */
export function nodeLabel(node: V1Node, role: string): string {
  const pid = node.spec?.providerID;
  return `${role} (${node.metadata?.name ?? '<no name>'}${pid ? `, ${pid}` : ''})`;
}

/** Problems of `instanceMetadata`'s answer for a Node whose machine exists. */
function metadataProblems(meta: InstanceMetadata | undefined, node: V1Node, providerName: string): string[] {
  if (meta === undefined || meta === null) return ['it resolved undefined (initialization would never finish)'];
  const problems = providerIDProblems(meta.providerID, providerName);
  const nodePID = node.spec?.providerID;
  if (nodePID && meta.providerID && meta.providerID !== nodePID) {
    problems.push(`providerID ${JSON.stringify(meta.providerID)} differs from the Node's ${JSON.stringify(nodePID)}`);
  }
  problems.push(...addressProblems(meta.nodeAddresses));
  for (const key of ['instanceType', 'zone', 'region'] as const) {
    if (meta[key] !== undefined && typeof meta[key] !== 'string') problems.push(`${key} is not a string`);
  }
  return problems;
}

const LIFECYCLE =
  'node-lifecycle deletes a NotReady Node at once when instanceExists resolves false; answer false only when the cloud confirms the machine is gone';

/** The InstancesV2 checks for a provider implementing the facet. */
export function instancesV2Checks(probe: ProviderProbe): CheckSpec[] {
  const checks: CheckSpec[] = [
    {
      id: 'instancesV2/exists',
      facet: 'instancesV2',
      title: 'instanceExists is true for existingNode',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'existingNode');
        const exists = await ctx.call(`instanceExists(${nodeLabel(node, 'existingNode')})`, () =>
          ctx.facet('instancesV2').instanceExists(node, ctx.signal),
        );
        ctx.require(
          exists === true,
          `instanceExists(${nodeLabel(node, 'existingNode')}) resolved ${show(exists)}, expected true`,
        );
      },
    },
    {
      id: 'instancesV2/missing',
      facet: 'instancesV2',
      title: 'instanceExists is false for missingNode, and instanceMetadata invents no machine for it',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'missingNode');
        const label = nodeLabel(node, 'missingNode');
        const i = ctx.facet('instancesV2');
        const exists = await ctx.call(`instanceExists(${label})`, () => i.instanceExists(node, ctx.signal));
        ctx.require(exists === false, `instanceExists(${label}) resolved ${show(exists)}, expected false`);
        const meta = await ctx.attempt(`instanceMetadata(${label})`, () => i.instanceMetadata(node, ctx.signal));
        ctx.require(
          !meta.ok || meta.value === undefined || meta.value === null,
          `instanceMetadata(${label}) resolved ${show(meta.ok && meta.value)}; for a missing machine reject (InstanceNotFoundError) or resolve undefined`,
        );
      },
    },
    {
      id: 'instancesV2/metadata',
      facet: 'instancesV2',
      title: 'instanceMetadata(existingNode) has a <providerName>://<id> providerID and valid addresses',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'existingNode');
        const label = `instanceMetadata(${nodeLabel(node, 'existingNode')})`;
        const meta = await ctx.call(label, () => ctx.facet('instancesV2').instanceMetadata(node, ctx.signal));
        const problems = metadataProblems(meta, node, ctx.cloud.providerName());
        ctx.require(problems.length === 0, `${label}: ${problems.join('; ')} (got ${show(meta)})`);
      },
    },
    {
      id: 'instancesV2/metadata-stable',
      facet: 'instancesV2',
      title: 'instanceMetadata(existingNode) is the same across calls',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'existingNode');
        const label = `instanceMetadata(${nodeLabel(node, 'existingNode')})`;
        const i = ctx.facet('instancesV2');
        const first = await ctx.call(label, () => i.instanceMetadata(node, ctx.signal));
        for (let n = 2; n <= 3; n++) {
          const next = await ctx.call(label, () => i.instanceMetadata(node, ctx.signal));
          ctx.require(
            isDeepStrictEqual(next, first),
            `${label} changed between calls (call 1: ${show(first)}; call ${n}: ${show(next)}); the cloud-node controller would rewrite the Node each pass`,
          );
        }
      },
    },
    {
      id: 'instancesV2/initialized-node',
      facet: 'instancesV2',
      title: 'the Node initialized with the reported providerID is still found, with the same metadata',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'existingNode');
        const i = ctx.facet('instancesV2');
        const meta = await ctx.call(`instanceMetadata(${nodeLabel(node, 'existingNode')})`, () =>
          i.instanceMetadata(node, ctx.signal),
        );
        const providerID = meta?.providerID || node.spec?.providerID;
        ctx.require(!!providerID, 'instanceMetadata(existingNode) reported no providerID and the Node has none');
        const initialized: V1Node = { ...node, spec: { ...node.spec, providerID } };
        const label = nodeLabel(initialized, 'the initialized existingNode');
        const exists = await ctx.call(`instanceExists(${label})`, () => i.instanceExists(initialized, ctx.signal));
        ctx.require(exists === true, `instanceExists(${label}) resolved ${show(exists)}, expected true; ${LIFECYCLE}`);
        const again = await ctx.call(`instanceMetadata(${label})`, () => i.instanceMetadata(initialized, ctx.signal));
        ctx.require(
          isDeepStrictEqual(again, meta),
          `instanceMetadata differs once the Node has its providerID (before: ${show(meta)}; after: ${show(again)})`,
        );
      },
    },
    {
      id: 'instancesV2/shutdown',
      facet: 'instancesV2',
      title: 'instanceShutdown is false for existingNode',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'existingNode');
        const label = `instanceShutdown(${nodeLabel(node, 'existingNode')})`;
        const down = await ctx.call(label, () => ctx.facet('instancesV2').instanceShutdown(node, ctx.signal));
        ctx.require(down === false, `${label} resolved ${show(down)}, expected false (a running machine)`);
      },
    },
  ];
  if (probe.stoppedNode) {
    checks.push({
      id: 'instancesV2/stopped',
      facet: 'instancesV2',
      title: 'a stopped machine exists and is shut down (stoppedNode)',
      async run(ctx: CheckContext) {
        const node = fixtureNode(ctx, 'stoppedNode');
        const label = nodeLabel(node, 'stoppedNode');
        const i = ctx.facet('instancesV2');
        const exists = await ctx.call(`instanceExists(${label})`, () => i.instanceExists(node, ctx.signal));
        ctx.require(
          exists === true,
          `instanceExists(${label}) resolved ${show(exists)}; a stopped machine still exists (${LIFECYCLE})`,
        );
        const down = await ctx.call(`instanceShutdown(${label})`, () => i.instanceShutdown(node, ctx.signal));
        ctx.require(down === true, `instanceShutdown(${label}) resolved ${show(down)}, expected true`);
      },
    });
  }
  if (probe.missingProviderID) checks.push(replacedCheck());
  if (probe.outage.has('instancesV2')) checks.push(outageCheck());
  if (probe.abortSignals) checks.push(abortCheck());
  return checks;
}

function replacedCheck(): CheckSpec {
  return {
    id: 'instancesV2/replaced',
    facet: 'instancesV2',
    title: 'a Node whose providerID names a gone machine does not exist, even when its name matches a running one',
    async run(ctx: CheckContext) {
      const existing = fixtureNode(ctx, 'existingNode');
      const missing = fixtureNode(ctx, 'missingNode');
      const node: V1Node = { ...existing, spec: { ...existing.spec, providerID: missing.spec?.providerID } };
      const label = nodeLabel(node, "a Node named like existingNode with missingNode's providerID");
      const exists = await ctx.call(`instanceExists(${label})`, () =>
        ctx.facet('instancesV2').instanceExists(node, ctx.signal),
      );
      ctx.require(
        exists === false,
        `instanceExists(${label}) resolved ${show(exists)}, expected false: look a Node up by spec.providerID first; its machine is gone even if another machine now has the Node's name`,
      );
    },
  };
}

function outageCheck(): CheckSpec {
  return {
    id: 'instancesV2/outage',
    facet: 'instancesV2',
    title:
      'during a cloud outage instanceExists and instanceMetadata reject (never false, undefined or InstanceNotFoundError)',
    async run(ctx: CheckContext) {
      const i = ctx.facet('instancesV2');
      const nodes = [
        [fixtureNode(ctx, 'existingNode'), 'existingNode'],
        [fixtureNode(ctx, 'missingNode'), 'missingNode'],
      ] as const;
      await ctx.breakCloud();
      for (const [node, role] of nodes) {
        const label = nodeLabel(node, role);
        const exists = await ctx.attempt(`instanceExists(${label})`, () => i.instanceExists(node, ctx.signal));
        if (exists.ok) {
          ctx.fail(
            `instanceExists(${label}) resolved ${show(exists.value)} while the cloud API was failing; it must reject when the cloud cannot be asked (${LIFECYCLE})`,
          );
        }
        const meta = await ctx.attempt(`instanceMetadata(${label})`, () => i.instanceMetadata(node, ctx.signal));
        if (meta.ok) {
          ctx.fail(
            `instanceMetadata(${label}) resolved ${show(meta.value)} while the cloud API was failing; it must reject`,
          );
        }
        if (findError(meta.error, InstanceNotFoundError)) {
          ctx.fail(
            `instanceMetadata(${label}) rejected with InstanceNotFoundError while the cloud API was failing (${describeError(meta.error)}); "not found" must mean the cloud said so`,
          );
        }
      }
      await ctx.healCloud();
      const [existing, missing] = nodes;
      const back = await ctx.call(`instanceExists(${nodeLabel(existing[0], existing[1])}) after the outage`, () =>
        i.instanceExists(existing[0], ctx.signal),
      );
      ctx.require(back === true, `after the outage instanceExists(existingNode) resolved ${show(back)}, expected true`);
      const gone = await ctx.call(`instanceExists(${nodeLabel(missing[0], missing[1])}) after the outage`, () =>
        i.instanceExists(missing[0], ctx.signal),
      );
      ctx.require(
        gone === false,
        `after the outage instanceExists(missingNode) resolved ${show(gone)}, expected false`,
      );
    },
  };
}

function abortCheck(): CheckSpec {
  return {
    id: 'instancesV2/abort',
    settle: true,
    facet: 'instancesV2',
    title: 'calls with an already-aborted AbortSignal reject',
    async run(ctx: CheckContext) {
      const node = fixtureNode(ctx, 'existingNode');
      const i = ctx.facet('instancesV2');
      const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
      const calls: Record<string, () => Promise<unknown>> = {
        instanceExists: () => i.instanceExists(node, aborted),
        instanceShutdown: () => i.instanceShutdown(node, aborted),
        instanceMetadata: () => i.instanceMetadata(node, aborted),
      };
      for (const [method, fn] of Object.entries(calls)) {
        const result = await ctx.attempt(`${method}(existingNode, aborted signal)`, fn);
        ctx.require(
          !result.ok,
          `${method}(existingNode) resolved ${show(result.ok && result.value)} with an already-aborted signal; reject (for example signal.throwIfAborted()) so cancelled work stops`,
        );
      }
    },
  };
}
