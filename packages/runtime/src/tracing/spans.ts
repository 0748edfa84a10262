/**
 * The spans ccm-kit makes (docs/tracing.md): one per reconcile of the work loop, a child per cloud call (the
 * app's fenced provider proxy) with a grandchild per `CloudCallGuard` call, and a child per API write of the
 * runtime transport. Every helper returns at once to the untraced path while tracing is off
 * ({@link loadTracing}).
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { currentCloudController, currentCloudLane } from '../budget/lane.js';
import { tracing } from './load.js';
import { currentSpanRecord, runInSpanRecord, type SpanRecord } from './span-context.js';

/** Attribute names of ccm-kit's spans (HTTP ones are OpenTelemetry's semantic conventions). */
export const SPAN_ATTRIBUTES = Object.freeze({
  controller: 'ccm_kit.controller',
  queue: 'ccm_kit.queue',
  key: 'ccm_kit.key',
  outcome: 'ccm_kit.outcome',
  requeue: 'ccm_kit.requeue',
  requeueAfterMs: 'ccm_kit.requeue_after_ms',
  cloudOperation: 'ccm_kit.cloud.operation',
  cloudLane: 'ccm_kit.cloud.lane',
  cloudBudgetWaitMs: 'ccm_kit.cloud.budget_wait_ms',
  cloudAttempts: 'ccm_kit.cloud.attempts',
  kubeResource: 'ccm_kit.kube.resource',
  httpMethod: 'http.request.method',
  httpStatusCode: 'http.response.status_code',
  urlPath: 'url.path',
});

/**
 * How a reconcile ended: `success`, `error` (requeued rate-limited), `retry` (after a `RetryError`'s delay),
 * `throttled` (after the delay of a cloud throttle the budget met, backoff unchanged) or `aborted` (stopping).
 */
export type ReconcileOutcome = 'success' | 'error' | 'retry' | 'throttled' | 'aborted';

/** How the key was requeued: not (`none`), with its backoff (`rate-limited`) or after a given delay (`after`). */
export type ReconcileRequeue = 'none' | 'rate-limited' | 'after';

/** The open span of one reconcile; see {@link startReconcileSpan}. */
export interface ReconcileSpan {
  /** Runs the reconcile with this span current (children attach to it). */
  run<T>(fn: () => T): T;
  /** Ends the span with the outcome; `err` is recorded as an exception. */
  end(outcome: ReconcileOutcome, requeue: ReconcileRequeue, requeueAfterMs?: number, err?: unknown): void;
}

function recordError(span: Span, err: unknown): void {
  const api = tracing()?.api;
  if (api === undefined) return;
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

function openRecord(
  kind: SpanRecord['kind'],
  name: string,
  attributes: Attributes,
  client: boolean,
): SpanRecord | undefined {
  const t = tracing();
  if (t === undefined) return undefined;
  const parent = currentSpanRecord()?.context ?? t.api.context.active();
  const span = t.tracer.startSpan(
    name,
    { attributes, kind: client ? t.api.SpanKind.CLIENT : t.api.SpanKind.INTERNAL },
    parent,
  );
  return { kind, span, context: t.api.trace.setSpan(parent, span), attempts: 0, budgetWaitMs: 0 };
}

/** Runs `fn` with `record` current, in ccm-kit's context and in OpenTelemetry's (for the vendor's own spans). */
function runIn<T>(record: SpanRecord, fn: () => T): T {
  const api = tracing()?.api;
  return runInSpanRecord(record, () => (api === undefined ? fn() : api.context.with(record.context, fn)));
}

/**
 * Opens the span of one reconcile (`<controller> reconcile`; attributes controller, queue, key), or returns
 * `undefined` while tracing is off. The controller is the manager's name for it when known
 * (`withCloudController`), else the queue worker's name.
 */
export function startReconcileSpan(queue: string, key: unknown): ReconcileSpan | undefined {
  if (tracing() === undefined) return undefined;
  const controller = currentCloudController() ?? queue;
  const record = openRecord(
    'reconcile',
    `${controller} reconcile`,
    {
      [SPAN_ATTRIBUTES.controller]: controller,
      [SPAN_ATTRIBUTES.queue]: queue,
      [SPAN_ATTRIBUTES.key]: typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key)),
    },
    false,
  );
  if (record === undefined) return undefined;
  return {
    run: (fn) => runIn(record, fn),
    end(outcome, requeue, requeueAfterMs, err) {
      record.span.setAttribute(SPAN_ATTRIBUTES.outcome, outcome);
      record.span.setAttribute(SPAN_ATTRIBUTES.requeue, requeue);
      if (requeueAfterMs !== undefined) record.span.setAttribute(SPAN_ATTRIBUTES.requeueAfterMs, requeueAfterMs);
      if (err !== undefined && outcome !== 'success') recordError(record.span, err);
      record.span.end();
    },
  };
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/** Runs `fn` in `record`, ending the span when it settles (synchronously or not); `finish` sets attributes first. */
function traced<T>(record: SpanRecord, fn: () => T, finish: (ok: boolean) => void): T {
  let out: T;
  try {
    out = runIn(record, fn);
  } catch (err) {
    finish(false);
    recordError(record.span, err);
    record.span.end();
    throw err;
  }
  if (!isThenable(out)) {
    finish(true);
    record.span.end();
    return out;
  }
  return (out as PromiseLike<unknown>).then(
    (v) => {
      finish(true);
      record.span.end();
      return v;
    },
    (err: unknown) => {
      finish(false);
      recordError(record.span, err);
      record.span.end();
      throw err;
    },
  ) as T;
}

/**
 * Traces one call of a provider facet (`operation` such as `LoadBalancer.ensureLoadBalancer`): a CLIENT span,
 * child of the current reconcile when there is one, with the lane, the milliseconds waited in the cloud
 * budget, the attempts `CloudCallGuard` sent (when the provider uses it) and the outcome (`success`/`error`).
 * While tracing is off it only calls `fn`.
 */
export function traceCloudCall<T>(operation: string, fn: () => T): T {
  if (tracing() === undefined) return fn();
  const lane = currentCloudLane() ?? 'user';
  const controller = currentCloudController();
  const attributes: Attributes = { [SPAN_ATTRIBUTES.cloudOperation]: operation, [SPAN_ATTRIBUTES.cloudLane]: lane };
  if (controller !== undefined) attributes[SPAN_ATTRIBUTES.controller] = controller;
  const record = openRecord('cloud', operation, attributes, true);
  if (record === undefined) return fn();
  return traced(record, fn, (ok) => finishCloud(record, ok));
}

function finishCloud(record: SpanRecord, ok: boolean): void {
  record.span.setAttribute(SPAN_ATTRIBUTES.outcome, ok ? 'success' : 'error');
  record.span.setAttribute(SPAN_ATTRIBUTES.cloudBudgetWaitMs, record.budgetWaitMs);
  if (record.lane !== undefined) record.span.setAttribute(SPAN_ATTRIBUTES.cloudLane, record.lane);
  if (record.attempts > 0) record.span.setAttribute(SPAN_ATTRIBUTES.cloudAttempts, record.attempts);
}

/**
 * Traces one `CloudCallGuard.call` (`operation` is the guard's, for example `list_servers`): a CLIENT span named
 * `cloud.api <operation>` with the attempts sent, the budget wait and the outcome; its attempts and wait are
 * added to the enclosing cloud-call span. While tracing is off it only calls `fn`.
 */
export function traceGuardCall<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  if (tracing() === undefined) return fn();
  const parent = currentSpanRecord();
  const record = openRecord(
    'guard',
    `cloud.api ${operation}`,
    { [SPAN_ATTRIBUTES.cloudOperation]: operation, [SPAN_ATTRIBUTES.cloudLane]: currentCloudLane() ?? 'user' },
    true,
  );
  if (record === undefined) return fn();
  return traced(record, fn, (ok) => {
    finishCloud(record, ok);
    if (parent?.kind === 'cloud') {
      parent.attempts += record.attempts;
      parent.budgetWaitMs += record.budgetWaitMs;
      if (record.lane !== undefined) parent.lane ??= record.lane;
    }
  });
}

/**
 * `services/status` for `https://host/api/v1/namespaces/default/services/web/status`: the resource, and the
 * subresource when there is one, of a Kubernetes API URL or path (core `…/api/v1/…` or
 * `…/apis/<group>/<version>/…`, after any prefix of the server URL). Anything else is returned as its path.
 */
export function kubeResourceOf(url: string): string {
  const path = pathOf(url);
  const segs = path.split('/').filter(Boolean);
  const core = segs.indexOf('api');
  const groups = segs.indexOf('apis');
  let rest: string[];
  if (core >= 0 && (groups < 0 || core < groups)) rest = segs.slice(core + 2);
  else if (groups >= 0) rest = segs.slice(groups + 3);
  else return path;
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  if (rest.length === 0) return path;
  return rest.length >= 3 ? `${rest[0]}/${rest[2]}` : rest[0]!;
}

/** The path of a URL (or path), without its query. */
function pathOf(url: string): string {
  return (url.split('?')[0] ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
}

/**
 * Traces one API write (`method` other than GET) inside a ccm-kit span: a CLIENT span `<METHOD> <resource>`
 * with the method, resource, path and response status code (an error status for ≥ 400 or no response).
 * Writes outside any reconcile or cloud call (Lease renewals, Events) are not traced, nor is anything while
 * tracing is off.
 */
export function traceApiWrite<R extends { status: number }>(
  method: string,
  url: string,
  fn: () => Promise<R>,
): Promise<R> {
  if (tracing() === undefined || currentSpanRecord() === undefined) return fn();
  const resource = kubeResourceOf(url);
  const record = openRecord(
    'write',
    `${method} ${resource}`,
    {
      [SPAN_ATTRIBUTES.httpMethod]: method,
      [SPAN_ATTRIBUTES.kubeResource]: resource,
      [SPAN_ATTRIBUTES.urlPath]: pathOf(url),
    },
    true,
  );
  if (record === undefined) return fn();
  return fn().then(
    (resp) => {
      record.span.setAttribute(SPAN_ATTRIBUTES.httpStatusCode, resp.status);
      if (resp.status >= 400) {
        const api = tracing()?.api;
        if (api !== undefined)
          record.span.setStatus({ code: api.SpanStatusCode.ERROR, message: `HTTP ${resp.status}` });
      }
      record.span.end();
      return resp;
    },
    (err: unknown) => {
      recordError(record.span, err);
      record.span.end();
      throw err;
    },
  );
}
