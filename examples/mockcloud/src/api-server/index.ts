export type { RequestLogEntry } from './admin-routes.js';
export type { AppliedFault, FaultRule, RateLimit } from './faults.js';
export { FaultInjector, faultRuleProblems } from './faults.js';
export { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './pagination.js';
export { ApiProblem } from './problem.js';
export { type ApiToken, MockCloudApiServer, type MockCloudApiServerOptions } from './server.js';
export { CloudState, type CloudStateOptions, type CloudStateSnapshot, type ServerSeed } from './state.js';
