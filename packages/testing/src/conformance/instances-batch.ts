/**
 * Checks of the optional batch read `InstancesV2.listInstanceStates` (docs/interfaces/instances-v2.md "Batch
 * reads"; docs/decisions/0103-batch-instance-reads.md), planned only when the provider has it: the pages are
 * well formed and end, and what they say about the fixture's machines is what the per-Node methods say — the
 * controllers take a listed Node's metadata and shutdown state from the listing instead of asking per Node.
 */
import { isDeepStrictEqual } from 'node:util';
import type { InstanceState, InstancesV2 } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { fixtureNode, nodeLabel } from './instances.js';
import { addressProblems, providerIDProblems } from './validate.js';
import { show } from './violation.js';

/** Pages a conformance listing may take before the check fails (a fixture account is small). */
const MAX_PAGES = 1_000;

function listFn(ctx: CheckContext): NonNullable<InstancesV2['listInstanceStates']> {
  const i = ctx.facet('instancesV2');
  const list = i.listInstanceStates;
  if (typeof list !== 'function') {
    ctx.fail('instancesV2().listInstanceStates is gone, but it was a function when the suite was planned');
  }
  return list.bind(i);
}

/** Reads every page, checking each page's shape and each item's; returns the instances by providerID. */
async function listAll(ctx: CheckContext): Promise<Map<string, InstanceState>> {
  const list = listFn(ctx);
  const out = new Map<string, InstanceState>();
  const seen = new Set<string>();
  let token: string | undefined;
  for (let n = 1; ; n++) {
    ctx.require(n <= MAX_PAGES, `listInstanceStates did not reach a last page within ${MAX_PAGES} pages`);
    const label = `listInstanceStates(${token === undefined ? 'first page' : JSON.stringify(token)})`;
    const page = await ctx.call(label, () => list(token, ctx.signal));
    ctx.require(
      typeof page === 'object' && page !== null && Array.isArray(page.instances),
      `${label} resolved ${show(page)}, not { instances: InstanceState[], nextPageToken?: string }`,
    );
    for (const item of page.instances) {
      const problems =
        typeof item !== 'object' || item === null
          ? ['not an object']
          : [
              ...providerIDProblems(item.providerID, ctx.cloud.providerName()),
              ...(typeof item.shutdown === 'boolean' ? [] : ['shutdown is not a boolean']),
              ...(typeof item.metadata === 'object' && item.metadata !== null ? [] : ['metadata is not an object']),
            ];
      ctx.require(problems.length === 0, `${label}: item ${show(item)}: ${problems.join('; ')}`);
      ctx.require(
        !out.has(item.providerID),
        `${label}: providerID ${JSON.stringify(item.providerID)} is listed twice; each instance once per listing`,
      );
      out.set(item.providerID, item);
    }
    const next = page.nextPageToken;
    ctx.require(
      next === undefined || typeof next === 'string',
      `${label}: nextPageToken ${show(next)} is not a string`,
    );
    if (!next) return out;
    ctx.require(!seen.has(next), `${label}: nextPageToken ${JSON.stringify(next)} came back a second time`);
    seen.add(next);
    token = next;
  }
}

/** The fixture Node with the providerID `instanceMetadata` reports (as the controllers leave it). */
async function initialized(ctx: CheckContext, node: V1Node, role: string): Promise<V1Node> {
  const meta = await ctx.call(`instanceMetadata(${nodeLabel(node, role)})`, () =>
    ctx.facet('instancesV2').instanceMetadata(node, ctx.signal),
  );
  const providerID = meta?.providerID || node.spec?.providerID;
  ctx.require(!!providerID, `instanceMetadata(${nodeLabel(node, role)}) reported no providerID and the Node has none`);
  return { ...node, spec: { ...node.spec, providerID } };
}

/** Requires the listing's entry for `node` to match `instanceMetadata` and `instanceShutdown` per Node. */
async function requireAgreement(ctx: CheckContext, listed: Map<string, InstanceState>, node: V1Node, role: string) {
  const i = ctx.facet('instancesV2');
  const label = nodeLabel(node, role);
  const item = listed.get(node.spec!.providerID!);
  ctx.require(
    item !== undefined,
    `listInstanceStates did not list ${label}; list every running or stopped instance, or the batch read saves no call for it`,
  );
  const meta = await ctx.call(`instanceMetadata(${label})`, () => i.instanceMetadata(node, ctx.signal));
  ctx.require(
    isDeepStrictEqual(item.metadata, meta),
    `listInstanceStates says ${label} has metadata ${show(item.metadata)}, instanceMetadata says ${show(meta)}; the status pass would write different addresses`,
  );
  const problems = addressProblems(item.metadata.nodeAddresses);
  ctx.require(problems.length === 0, `listInstanceStates: ${label}: ${problems.join('; ')}`);
  const down = await ctx.call(`instanceShutdown(${label})`, () => i.instanceShutdown(node, ctx.signal));
  ctx.require(
    item.shutdown === down,
    `listInstanceStates says ${label} has shutdown ${show(item.shutdown)}, instanceShutdown says ${show(down)}; the lifecycle monitor would taint differently`,
  );
}

/** The batch-read checks for a provider whose InstancesV2 facet has `listInstanceStates`. */
export function instancesBatchChecks(probe: ProviderProbe): CheckSpec[] {
  const checks: CheckSpec[] = [
    {
      id: 'instancesV2/batch-agrees',
      facet: 'instancesV2',
      title:
        'listInstanceStates pages are well formed, end, and agree with instanceMetadata and instanceShutdown per Node',
      async run(ctx: CheckContext) {
        const listed = await listAll(ctx);
        const roles = probe.stoppedNode ? (['existingNode', 'stoppedNode'] as const) : (['existingNode'] as const);
        for (const role of roles) {
          const node = await initialized(ctx, fixtureNode(ctx, role), role);
          await requireAgreement(ctx, listed, node, role);
        }
        const missing = fixtureNode(ctx, 'missingNode').spec?.providerID;
        ctx.require(
          !missing || !listed.has(missing),
          `listInstanceStates lists missingNode's providerID ${JSON.stringify(missing)}; list only instances for which instanceExists is true`,
        );
      },
    },
  ];
  if (probe.outage.has('instancesV2')) {
    checks.push({
      id: 'instancesV2/batch-outage',
      facet: 'instancesV2',
      title: 'during a cloud outage listInstanceStates rejects (never an empty or short page)',
      async run(ctx: CheckContext) {
        const list = listFn(ctx);
        await ctx.breakCloud();
        const page = await ctx.attempt('listInstanceStates(first page) during the outage', () =>
          list(undefined, ctx.signal),
        );
        ctx.require(
          !page.ok,
          `listInstanceStates resolved ${show(page.ok && page.value)} while the cloud API was failing; reject so the controllers ask per Node`,
        );
      },
    });
  }
  if (probe.abortSignals) {
    checks.push({
      id: 'instancesV2/batch-abort',
      settle: true,
      facet: 'instancesV2',
      title: 'listInstanceStates with an already-aborted AbortSignal rejects',
      async run(ctx: CheckContext) {
        const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
        const list = listFn(ctx);
        const result = await ctx.attempt('listInstanceStates(first page, aborted signal)', () =>
          list(undefined, aborted),
        );
        ctx.require(
          !result.ok,
          `listInstanceStates resolved ${show(result.ok && result.value)} with an already-aborted signal; reject so cancelled work stops`,
        );
      },
    });
  }
  return checks;
}
