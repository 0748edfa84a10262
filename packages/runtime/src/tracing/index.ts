export { loadTracing, TRACER_NAME } from './load.js';
export { noteCloudAttempt } from './span-context.js';
export {
  kubeResourceOf,
  type ReconcileOutcome,
  type ReconcileRequeue,
  type ReconcileSpan,
  SPAN_ATTRIBUTES,
  startReconcileSpan,
  traceApiWrite,
  traceCloudCall,
  traceGuardCall,
} from './spans.js';
