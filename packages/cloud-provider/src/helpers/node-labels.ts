/**
 * Node label patching.
 * Follows upstream `k8s.io/cloud-provider/node/helpers/labels.go` `AddOrUpdateLabelsOnNode`.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { NodeClient } from './clients.js';
import { errorMessage } from './error-message.js';
import { type RetryOnConflictOptions, retryOnConflict } from './retry-on-conflict.js';

/**
 * The strategic merge patch that sets `labels` on `node`: `{"metadata":{"labels":{…}}}` with only the
 * labels that are missing or have another value (keys sorted), or `undefined` when nothing changes.
 */
export function nodeLabelsPatch(
  node: Pick<V1Node, 'metadata'>,
  labels: Readonly<Record<string, string>>,
): { metadata: { labels: Record<string, string> } } | undefined {
  const current = node.metadata?.labels ?? {};
  const changed: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) {
    const value = labels[key] as string;
    if (current[key] !== value) changed[key] = value;
  }
  return Object.keys(changed).length === 0 ? undefined : { metadata: { labels: changed } };
}

/** Options of {@link addOrUpdateLabelsOnNode}. */
export interface AddOrUpdateLabelsOptions extends RetryOnConflictOptions {
  /** Receives the failure (upstream reports it through `HandleError`). */
  onError?: (err: Error) => void;
}

/**
 * Sets (adds or overwrites) `labels` on the node with a labels-only strategic merge patch to the node
 * (not status), inside a conflict retry (5 × 100 ms). The first read asks for `resourceVersion: '0'`
 * (apiserver cache); later reads are fresh. When every label already has its value, no PATCH is sent.
 * @returns true on success, false on failure (the error goes to `options.onError`, message
 *   `failed to update labels for node "<name>": <reason>`; a failed PATCH reads
 *   `failed to patch the node: <reason>`).
 */
export async function addOrUpdateLabelsOnNode(
  client: NodeClient,
  labels: Readonly<Record<string, string>>,
  node: Pick<V1Node, 'metadata'>,
  options: AddOrUpdateLabelsOptions = {},
): Promise<boolean> {
  const name = node.metadata?.name ?? '';
  try {
    if (name === '') throw new Error('node.metadata.name is required');
    await retryOnConflict(async (attempt) => {
      const current = await client.getNode(name, attempt === 0 ? { resourceVersion: '0' } : undefined);
      const patch = nodeLabelsPatch(current, labels);
      if (patch === undefined) return;
      try {
        await client.patchNode(name, patch);
      } catch (err) {
        throw new Error(`failed to patch the node: ${errorMessage(err)}`, {
          cause: err,
        });
      }
    }, options);
    return true;
  } catch (err) {
    options.onError?.(
      new Error(`failed to update labels for node ${JSON.stringify(name)}: ${errorMessage(err)}`, {
        cause: err,
      }),
    );
    return false;
  }
}
