/**
 * `@ccm-kit/runtime/wait`: waiting and loops (apimachinery `util/wait`: `until`, `jitterUntil`, `pollUntil`) and the
 * clock the runtime's timers read (k8s.io/utils `clock`). Public API, covered by semver.
 */
export {
  type Clock,
  realClock,
  sleep,
  jitterUntil,
  until,
  nonSlidingUntil,
  pollUntil,
  type LoopFunc,
  type JitterUntilOptions,
  type PollOptions,
  WaitTimeoutError,
  untilAborted,
  whenAborted,
} from '../util/index.js';
