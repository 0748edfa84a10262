/**
 * `@ccm-kit/runtime/events`: the event broadcaster, recorder and API sink (client-go `tools/record`). Public API, covered by semver.
 */
export {
  type EventSourceInfo,
  type EventBroadcasterOptions,
  EventBroadcaster,
  coreV1EventSink,
  type EventType,
  type EventObject,
  type EventPatch,
  type EventSink,
  type EventRecorder,
  type CorrelatorOptions,
  type EventWatcher,
  type EventClient,
} from '../events/index.js';
