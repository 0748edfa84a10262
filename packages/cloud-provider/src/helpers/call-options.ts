/**
 * Per-call options for client-node's generated API methods: the PATCH content type (whose default,
 * JSON Patch, is wrong for object bodies), cancellation and other edits of one request. client-node's per-call
 * middleware must be Observable-style and merged with the `append` strategy, or the client's own middleware is
 * dropped; these helpers do both. `@ccm-kit/runtime/client` re-exports `patchOptions` and `callOptions` as public
 * API; the Node and Service adapters here (`./clients.ts`) use them too.
 */
import type { ConfigurationOptions, RequestContext } from '@kubernetes/client-node';
// The light modules of client-node's `Observable` and `PatchStrategy` (nothing but the class and the constants):
// importing the package's index would evaluate its whole generated API on a CCM's hot path.
import { Observable } from '@kubernetes/client-node/dist/gen/rxjsStub.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';

/** The four PATCH flavours: merge (RFC 7386), strategic merge, JSON Patch (RFC 6902) and server-side apply. */
export type PatchKind = 'merge' | 'strategic' | 'json' | 'apply';

const contentTypes: Record<PatchKind, string> = {
  merge: PatchStrategy.MergePatch,
  strategic: PatchStrategy.StrategicMergePatch,
  json: PatchStrategy.JsonPatch,
  apply: PatchStrategy.ServerSideApply,
};

/** Extra per-call settings. */
export interface CallOptions {
  /** Aborts the request (combined with the client's own timeout). */
  signal?: AbortSignal;
}

type ObservableMiddleware = NonNullable<ConfigurationOptions['middleware']>[number];

function preMiddleware(fn: (ctx: RequestContext) => void): ObservableMiddleware {
  return {
    pre: (ctx: RequestContext) => {
      fn(ctx);
      return new Observable(Promise.resolve(ctx));
    },
    post: (rsp) => new Observable(Promise.resolve(rsp)),
  } as ObservableMiddleware;
}

function appended(middleware: ObservableMiddleware[]): ConfigurationOptions {
  return { middleware, middlewareMergeStrategy: 'append' };
}

/**
 * Options for one call: `core.patchNode({ name, body }, patchOptions('strategic'))`.
 * For `'apply'`, pass `fieldManager` (and `force`) as ordinary request parameters.
 * @throws TypeError when `kind` is not one of {@link PatchKind}.
 */
export function patchOptions(kind: PatchKind, opts: CallOptions = {}): ConfigurationOptions {
  const ct = contentTypes[kind];
  if (ct === undefined)
    throw new TypeError(`patchOptions: kind must be merge, strategic, json or apply, got ${JSON.stringify(kind)}`);
  const middleware = [preMiddleware((ctx) => ctx.setHeaderParam('Content-Type', ct))];
  if (opts.signal) middleware.push(signalMiddleware(opts.signal));
  return appended(middleware);
}

/** Options for one call that only add cancellation: `core.readNode({ name }, callOptions({ signal }))`. */
export function callOptions(opts: CallOptions): ConfigurationOptions {
  return appended(opts.signal ? [signalMiddleware(opts.signal)] : []);
}

/** Options for one call that run `edit` on its request, for example to add a query parameter. */
export function editRequest(edit: (ctx: RequestContext) => void): ConfigurationOptions {
  return appended([preMiddleware(edit)]);
}

function signalMiddleware(signal: AbortSignal): ObservableMiddleware {
  return preMiddleware((ctx) => {
    const existing = ctx.getSignal();
    ctx.setSignal(existing ? AbortSignal.any([existing, signal]) : signal);
  });
}
