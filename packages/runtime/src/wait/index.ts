/**
 * `@ccm-kit/runtime/wait`: waiting and loops (apimachinery `util/wait`: `until`, `jitterUntil`, `pollUntil`) and the
 * clock the runtime's timers read (k8s.io/utils `clock`). Public API, covered by semver.
 */
export { type Clock, realClock } from '../clock/clock.js';
export { sleep } from './sleep.js';
export {
  jitterUntil,
  until,
  nonSlidingUntil,
  pollUntil,
  type LoopFunc,
  type JitterUntilOptions,
  type PollOptions,
  WaitTimeoutError,
} from './wait.js';
export { untilAborted, whenAborted } from './until-aborted.js';
