/**
 * Event keys and names used by the correlator (client-go `tools/record/events_cache.go`), and the
 * timestamp format of `metav1.Time`.
 */
import type { CoreV1Event } from '@kubernetes/client-node';

/** Everything that identifies an event: source, involved object, type, reason and message (`getEventKey`). */
export function getEventKey(e: CoreV1Event): string {
  const o = e.involvedObject ?? {};
  return [
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  ]
    .map((x) => x ?? '')
    .join('');
}

/** Source and involved object only: the spam filter's key (`getSpamKey`). */
export function getSpamKey(e: CoreV1Event): string {
  const o = e.involvedObject ?? {};
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion]
    .map((x) => x ?? '')
    .join('');
}

/** Groups events that differ only in message: `[aggregateKey, localKey = message]` (`EventAggregatorByReasonFunc`). */
export function eventAggregatorByReason(e: CoreV1Event): [string, string] {
  const o = e.involvedObject ?? {};
  const key = [
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ]
    .map((x) => x ?? '')
    .join('');
  return [key, e.message ?? ''];
}

/** The message of an aggregated event (`EventAggregatorByReasonMessageFunc`). */
export function eventAggregatorByReasonMessage(e: CoreV1Event): string {
  return `(combined from similar events): ${e.message ?? ''}`;
}

let lastNanos = 0n;

/**
 * A unique event name, `<objectName>.<hex nanoseconds>` as upstream (`fmt.Sprintf("%v.%x", name, t.UnixNano())`).
 * The nanoseconds are made strictly increasing within the process, so two events in the same
 * millisecond never collide.
 */
export function eventName(objectName: string | undefined, nowMs: number): string {
  let nanos = BigInt(Math.trunc(nowMs)) * 1_000_000n;
  if (nanos <= lastNanos) nanos = lastNanos + 1n;
  lastNanos = nanos;
  return `${objectName ?? ''}.${nanos.toString(16)}`;
}

/** `metav1.Time` JSON: RFC 3339 in UTC with whole seconds (`2026-01-02T03:04:05Z`). */
export function formatTime(t: Date | string | undefined): string | undefined {
  if (t === undefined) return undefined;
  const d = typeof t === 'string' ? new Date(t) : t;
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A timestamp as a `Date` (events read back from the API or a fake may carry strings). */
export function toDate(t: Date | string | undefined): Date | undefined {
  if (t === undefined) return undefined;
  return typeof t === 'string' ? new Date(t) : t;
}
