export { CallLog, type CallLogEntry, DEFAULT_CALL_LOG_LIMIT } from './call-log.js';
export { InjectedError, ThrottledError } from './errors.js';
export { FakeCloud, type FakeCloudOptions } from './fake-cloud.js';
export {
  type ErrorFactory,
  type ErrorInjectionContext,
  type ErrorPolicy,
  FaultInjector,
  type LatencySpec,
  type ThrottlePolicy,
} from './faults.js';
export type { FakeInstance, FakeInstanceSpec } from './instances.js';
export type {
  BalancerCallCallback,
  FakeBalancer,
  FakeCloudKnobs,
  InstanceMetadataOverride,
  UpdateBalancerCall,
} from './knobs.js';
export { FAKE_CLOUD_METHODS, type FakeCloudMethod, type MethodSelector } from './methods.js';
export type { FakeRoute } from './routes.js';
