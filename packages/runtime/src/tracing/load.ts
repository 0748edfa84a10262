/**
 * Whether ccm-kit makes OpenTelemetry spans, decided once by {@link loadTracing}: only when `@opentelemetry/api`
 * can be imported (an optional peer dependency, imported dynamically so that nothing loads it otherwise) and a
 * tracer provider has been registered with it (an SDK's `register()` or `trace.setGlobalTracerProvider`). In
 * every other case the work loop, the cloud calls and the API writes run exactly as without tracing: one check
 * of a module variable each. See docs/tracing.md.
 */
import type * as OtelApi from '@opentelemetry/api';
import { onCloudBudgetCharge } from '../budget/charge.js';
import { noteBudgetCharge } from './span-context.js';

/** The `@opentelemetry/api` module namespace. */
export type OtelApiModule = typeof OtelApi;

/** What the span helpers need once tracing is on. */
export interface TracingState {
  readonly api: OtelApiModule;
  readonly tracer: OtelApi.Tracer;
}

/** The instrumentation scope of every ccm-kit span. */
export const TRACER_NAME = '@ccm-kit/runtime';

let state: TracingState | undefined;
let stopChargeListener: (() => void) | undefined;

/**
 * Whether a tracer provider was registered: the API's global proxy then delegates to it. Without one the proxy
 * delegates to the API's no-op provider (the delegate of a fresh proxy), whose tracers make non-recording spans.
 * A proxy of another copy of the API is only registered once it has a delegate.
 */
function providerRegistered(api: OtelApiModule): boolean {
  const provider = api.trace.getTracerProvider();
  if (!(provider instanceof api.ProxyTracerProvider)) return true;
  return provider.getDelegate() !== new api.ProxyTracerProvider().getDelegate();
}

/** The tracing state, or `undefined` while tracing is off (the fast path of every helper). */
export function tracing(): TracingState | undefined {
  return state;
}

/**
 * Turns ccm-kit's spans on when `@opentelemetry/api` is installed and a tracer provider is registered, and off
 * otherwise. The app calls it once at start, before the controllers run; a program that builds its own manager
 * from the runtime's parts calls it (`@ccm-kit/runtime/tracing`) after registering its tracer provider. Calling it
 * again re-evaluates (for example after `trace.disable()`).
 *
 * @returns true when spans are made from now on. Never throws: a missing or broken `@opentelemetry/api` means
 *   no tracing.
 */
export async function loadTracing(): Promise<boolean> {
  let api: OtelApiModule | undefined;
  try {
    api = await import('@opentelemetry/api');
  } catch {
    api = undefined;
  }
  if (api === undefined || !providerRegistered(api)) {
    state = undefined;
    stopChargeListener?.();
    stopChargeListener = undefined;
    return false;
  }
  const provider = api.trace.getTracerProvider();
  state = { api, tracer: provider.getTracer(TRACER_NAME) };
  // The budget publishes each charge in the caller's asynchronous context: the cloud call's span is current.
  stopChargeListener ??= onCloudBudgetCharge(noteBudgetCharge);
  return true;
}
