/**
 * `@ccm-kit/testing`: `FakeCloud` (every facet switchable, fault injection, call log), `startControlPlane`
 * (a real kube-apiserver + etcd), `TestCluster`, unit-test fakes (`MemoryInformer`, `RecordingEventRecorder`,
 * Node and Service builders), the provider conformance suite's options and plan, and the
 * runner-independent parts of the test kit (log capture, `errorMessage`, `uniqueName`). The vitest helpers
 * are in `@ccm-kit/testing/vitest`. Every name here is public API, covered by semver; the package README
 * lists them by group.
 */
export { uniqueName, ignoreNotFound, isGone, TestCluster, type TestClusterOptions } from './cluster/index.js';
export {
  CONFORMANCE_FACETS,
  type ConformanceFacet,
  type ConformanceTimeouts,
  DEFAULT_CONFORMANCE_TIMEOUTS,
  type LoadBalancerConformanceOptions,
  type OutageFacet,
  type ProviderConformanceOptions,
  type ProviderFixture,
  type RoutesConformanceOptions,
  type ConformanceCheck,
  type ConformanceCoverage,
  type ConformancePlan,
  formatCoverage,
  planProviderConformance,
  ConformanceViolation,
  trackStubs,
  type StubTracker,
} from './conformance/index.js';
export {
  type BinaryLookupOptions,
  type ControlPlaneBinaryName,
  type ControlPlane,
  type ControlPlaneOptions,
  ControlPlaneStartError,
  type ControlPlaneUser,
  type RestartOptions,
  type StopProcessOptions,
  startControlPlane,
  type ControlPlaneBinaries,
  ControlPlaneBinariesMissingError,
  type EnsureBinariesOptions,
  ensureControlPlaneBinaries,
  type FlagOverrides,
  findControlPlaneBinary,
  type BinaryLocation,
  type BinarySource,
  DEFAULT_ENVTEST_INDEX_URL,
  downloadEnvtestBinaries,
  type EnvtestDownloadOptions,
} from './control-plane/index.js';
export {
  CallLog,
  type CallLogEntry,
  InjectedError,
  ThrottledError,
  FakeCloud,
  type FakeCloudOptions,
  type ErrorFactory,
  type ErrorInjectionContext,
  type ErrorPolicy,
  type FaultInjector,
  type LatencySpec,
  type ThrottlePolicy,
  type FakeInstance,
  type FakeInstanceSpec,
  type BalancerCallCallback,
  type FakeBalancer,
  type FakeCloudKnobs,
  type InstanceMetadataOverride,
  type UpdateBalancerCall,
  FAKE_CLOUD_METHODS,
  type FakeCloudMethod,
  type MethodSelector,
  type FakeRoute,
} from './fake-cloud/index.js';
export {
  type InitializedNodeOptions,
  initializedNode,
  type KubeletNodeOptions,
  kubeletNode,
  type LoadBalancerServiceOptions,
  loadBalancerService,
  MemoryInformer,
  type MemorySharedInformers,
  memoryInformers,
  type NamedObject,
  type RecordedEvent,
  RecordingEventRecorder,
  uninitializedTaint,
} from './fakes/index.js';
export { captureLogs, restoreLogWriter, type CapturedLogs } from './logging/capture-logs.js';
export { silentLogger } from './logging/silent-logger.js';
export { type LogRecord, RecordingLogger, type RecordingLoggerOptions } from './logging/recording-logger.js';
export { errorMessage } from './wait/error-message.js';
export { type ResolvedTimeouts } from './conformance/options.js';
export { type FaultInjectorOptions } from './fake-cloud/faults.js';
export { type KubeletNode, registerKubeletNodes } from './local-cluster/kubelet-nodes.js';
export { nodeTable, serviceTable, table } from './local-cluster/tables.js';
