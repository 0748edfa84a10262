/**
 * The ccm-kit span current in an asynchronous context: the reconcile, cloud call or guard call whose work is
 * running. Kept in ccm-kit's own AsyncLocalStorage, so children attach to their reconcile even when the
 * registered SDK installed no OpenTelemetry context manager (`BasicTracerProvider` installs none). Only used
 * while tracing is on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Span } from '@opentelemetry/api';
import type { CloudBudgetCharge } from '../budget/charge.js';

/** One open ccm-kit span and what its children report to it. */
export interface SpanRecord {
  readonly kind: 'reconcile' | 'cloud' | 'guard' | 'write';
  readonly span: Span;
  /** The OpenTelemetry context with {@link span} active (the parent of children). */
  readonly context: Context;
  /** Attempts sent to the cloud (cloud and guard spans; reported by `CloudCallGuard`). */
  attempts: number;
  /** Milliseconds waited in the cloud budget (cloud and guard spans). */
  budgetWaitMs: number;
  /** The lane the budget charged, when it did. */
  lane?: string;
}

const storage = new AsyncLocalStorage<SpanRecord>();

/** The innermost open ccm-kit span of this asynchronous context, if any. */
export function currentSpanRecord(): SpanRecord | undefined {
  return storage.getStore();
}

/** Runs `fn` with `record` as the current span record. */
export function runInSpanRecord<T>(record: SpanRecord, fn: () => T): T {
  return storage.run(record, fn);
}

/** Adds a budget charge to the current cloud or guard span (the budget publishes it in the caller's context). */
export function noteBudgetCharge(charge: CloudBudgetCharge): void {
  const record = storage.getStore();
  if (record === undefined || !(record.kind === 'cloud' || record.kind === 'guard')) return;
  record.budgetWaitMs += charge.waitedMs;
  record.lane = charge.lane;
}

/** Counts one attempt sent by `CloudCallGuard` on the current guard span (no-op outside one). */
export function noteCloudAttempt(): void {
  const record = storage.getStore();
  if (record !== undefined && (record.kind === 'cloud' || record.kind === 'guard')) record.attempts++;
}
