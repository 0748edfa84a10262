/**
 * `@ccm-kit/runtime/events`: the event broadcaster, recorder and API sink (client-go `tools/record`). Public API, covered by semver.
 */
export { type EventSourceInfo } from './recorder.js';
export { type EventBroadcasterOptions, EventBroadcaster } from './broadcaster.js';
export { coreV1EventSink, type EventClient } from './sink.js';
export { type EventType, type EventObject, type EventPatch, type EventSink, type EventRecorder } from './types.js';
export { type CorrelatorOptions } from './correlator.js';
export { type EventWatcher } from './watcher.js';
