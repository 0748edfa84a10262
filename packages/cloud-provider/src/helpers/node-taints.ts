/**
 * Node taint helpers.
 * Follows upstream `k8s.io/cloud-provider/node/helpers/taints.go`. The pure helpers never
 * modify their inputs; the `…OnNode` helpers read and patch through a {@link NodeClient}.
 */
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { NodeClient } from './clients.js';
import { deepCopy } from './deep-copy.js';
import { type RetryOnConflictOptions, retryOnConflict } from './retry-on-conflict.js';
import { createTwoWayMergePatch, type JsonObject } from './strategic-merge-patch.js';

/** True when `a` and `b` have the same key and effect (upstream `Taint.MatchTaint`); values are ignored. */
export function taintMatches(a: V1Taint, b: V1Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

function timeMillis(t: unknown): number | undefined {
  if (t === undefined || t === null) return undefined;
  if (t instanceof Date) return t.getTime();
  const parsed = Date.parse(String(t));
  return Number.isNaN(parsed) ? undefined : parsed;
}

/**
 * Semantic equality of two taints: key, value, effect and `timeAdded` (compared as instants; a missing
 * value equals an empty one for the strings).
 */
export function taintsEqual(a: V1Taint, b: V1Taint): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    timeMillis(a.timeAdded) === timeMillis(b.timeAdded)
  );
}

/** True when a taint in `taints` matches `taint` by key and effect (upstream `taintExists`). */
export function taintExists(taints: readonly V1Taint[] | undefined, taint: V1Taint): boolean {
  return (taints ?? []).some((t) => taintMatches(t, taint));
}

/**
 * Removes every taint matching `taint` by key and effect (upstream `deleteTaint`).
 * @returns a new list (never `undefined`; empty when nothing remains) and whether anything was removed.
 */
export function deleteTaint(
  taints: readonly V1Taint[] | undefined,
  taint: V1Taint,
): { taints: V1Taint[]; deleted: boolean } {
  const out: V1Taint[] = [];
  let deleted = false;
  for (const t of taints ?? []) {
    if (taintMatches(t, taint)) deleted = true;
    else out.push(t);
  }
  return { taints: out, deleted };
}

function copyNode(node: V1Node): V1Node {
  return deepCopy(node);
}

/**
 * A copy of `node` without the taints matching `taint` by key and effect (upstream `removeTaint`).
 * With no taints or no match, `changed` is false and the copy keeps its taint list as it was.
 */
export function removeTaint(node: V1Node, taint: V1Taint): { node: V1Node; changed: boolean } {
  const copy = copyNode(node);
  const taints = copy.spec?.taints;
  if (taints === undefined || taints.length === 0 || !taintExists(taints, taint)) {
    return { node: copy, changed: false };
  }
  copy.spec = { ...copy.spec, taints: deleteTaint(taints, taint).taints };
  return { node: copy, changed: true };
}

/**
 * A copy of `node` with `taint` added (upstream `addOrUpdateTaint`): an equal taint (same key and effect,
 * {@link taintsEqual}) is a no-op (`changed` false); a matching but different one is replaced in place;
 * otherwise `taint` is appended.
 */
export function addOrUpdateTaint(node: V1Node, taint: V1Taint): { node: V1Node; changed: boolean } {
  const copy = copyNode(node);
  const taints = copy.spec?.taints ?? [];
  const out: V1Taint[] = [];
  let updated = false;
  for (const t of taints) {
    if (taintMatches(t, taint)) {
      if (taintsEqual(t, taint)) return { node: copy, changed: false };
      out.push(deepCopy(taint));
      updated = true;
    } else {
      out.push(t);
    }
  }
  if (!updated) out.push(deepCopy(taint));
  copy.spec = { ...copy.spec, taints: out };
  return { node: copy, changed: true };
}

/**
 * The strategic merge patch that replaces the taints of `oldNode` by those of `newNode`
 * (upstream `PatchNodeTaints`): the diff of `oldNode` with its resourceVersion blanked against `oldNode`
 * with `newNode`'s taints. It carries `metadata.resourceVersion` (optimistic concurrency: a stale node gives
 * a 409 Conflict) and the whole `spec.taints` list (`null` when it becomes empty), for example
 * `{"metadata":{"resourceVersion":"42"},"spec":{"taints":[…]}}`.
 */
export function nodeTaintsPatch(oldNode: V1Node, newNode: Pick<V1Node, 'spec'>): JsonObject {
  const original = { ...oldNode, metadata: { ...oldNode.metadata, resourceVersion: undefined } };
  const modified = { ...oldNode, spec: { ...oldNode.spec, taints: newNode.spec?.taints } };
  return createTwoWayMergePatch(original, modified);
}

/**
 * Sends {@link nodeTaintsPatch} as a strategic merge patch to the node (not status).
 * @returns the patched node from the server.
 * @throws the client's error unchanged (so a 409 Conflict is recognized by {@link retryOnConflict}).
 */
export async function patchNodeTaints(
  client: NodeClient,
  nodeName: string,
  oldNode: V1Node,
  newNode: Pick<V1Node, 'spec'>,
): Promise<V1Node> {
  return client.patchNode(nodeName, nodeTaintsPatch(oldNode, newNode));
}

/**
 * Adds or updates `taints` on the named node (upstream `AddOrUpdateTaintOnNode`), inside a conflict retry
 * (5 × 100 ms; the first read asks for `resourceVersion: '0'`). Each taint is applied in order with
 * {@link addOrUpdateTaint}; when nothing changes no PATCH is sent. With no taints nothing is done.
 * @throws the read or patch error once retries are exhausted or for any non-conflict error.
 */
export async function addOrUpdateTaintOnNode(
  client: NodeClient,
  nodeName: string,
  taints: readonly V1Taint[],
  options: RetryOnConflictOptions = {},
): Promise<void> {
  if (taints.length === 0) return;
  await retryOnConflict(async (attempt) => {
    const oldNode = await client.getNode(nodeName, attempt === 0 ? { resourceVersion: '0' } : undefined);
    let node = oldNode;
    let updated = false;
    for (const taint of taints) {
      const r = addOrUpdateTaint(node, taint);
      updated ||= r.changed;
      node = r.node;
    }
    if (!updated) return;
    await patchNodeTaints(client, nodeName, oldNode, node);
  }, options);
}

/**
 * Removes every taint matching one of `taints` by key and effect from the named node (upstream
 * `RemoveTaintOffNode`), inside a conflict retry (5 × 100 ms; first read with `resourceVersion: '0'`).
 * With no taints nothing is done. When `node` is given and none of `taints` matches its taints, returns at
 * once without any API call. When nothing changes no PATCH is sent.
 * @throws the read or patch error once retries are exhausted or for any non-conflict error.
 */
export async function removeTaintOffNode(
  client: NodeClient,
  nodeName: string,
  node: V1Node | undefined,
  taints: readonly V1Taint[],
  options: RetryOnConflictOptions = {},
): Promise<void> {
  if (taints.length === 0) return;
  if (node !== undefined && !taints.some((t) => taintExists(node.spec?.taints, t))) return;
  await retryOnConflict(async (attempt) => {
    const oldNode = await client.getNode(nodeName, attempt === 0 ? { resourceVersion: '0' } : undefined);
    let current = oldNode;
    let updated = false;
    for (const taint of taints) {
      const r = removeTaint(current, taint);
      updated ||= r.changed;
      current = r.node;
    }
    if (!updated) return;
    await patchNodeTaints(client, nodeName, oldNode, current);
  }, options);
}
