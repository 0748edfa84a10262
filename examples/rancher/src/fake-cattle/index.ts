/** The fake Cattle API the example's tests and demo run against. */
export { type FakeCattle, type FakeCattleOptions, startFakeCattle } from './server.js';
export { FakeCattleState, type FakeCattleStateOptions, type Stored } from './state.js';
