/**
 * `@ccm-kit/runtime/health`: health checks served at `/healthz`, `/livez`, `/readyz` (k8s.io/apiserver
 * `server/healthz`). Public API, covered by semver.
 */
export {
  type HealthCheck,
  type HealthChecksOptions,
  pingCheck,
  HealthChecks,
  type HealthEndpoint,
  type HealthQuery,
  type HealthResponse,
} from './health-checks.js';
