/**
 * `@ccm-kit/runtime/tracing`: OpenTelemetry tracing through the optional peer `@opentelemetry/api` (`loadTracing`,
 * `SPAN_ATTRIBUTES`, `TRACER_NAME`; docs/tracing.md). Public API, covered by semver.
 */
export { loadTracing, TRACER_NAME } from './load.js';
export { SPAN_ATTRIBUTES } from './spans.js';
