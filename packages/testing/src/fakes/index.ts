export { MemoryInformer, type MemorySharedInformers, memoryInformers, type NamedObject } from './memory-informer.js';
export { type RecordedEvent, RecordingEventRecorder } from './recording-event-recorder.js';
export {
  type InitializedNodeOptions,
  initializedNode,
  type KubeletNodeOptions,
  kubeletNode,
  type LoadBalancerServiceOptions,
  loadBalancerService,
  uninitializedTaint,
} from './builders.js';
