/**
 * `/metrics/slis`: the health-check SLI metrics of component-base `metrics/prometheus/slis`, in a registry of
 * their own (upstream `k8s.io/cloud-provider app/controllermanager.go Run`): `kubernetes_healthcheck{name,type}` (1 healthy, 0 not, from the latest
 * evaluation) and `kubernetes_healthchecks_total{name,status,type}` (`status` is `success` or `error`).
 * Checks are instrumented when registered; every evaluation (any health endpoint) is recorded.
 */
import type { HealthCheck } from '@ccm-kit/runtime/health';
import { Counter, Gauge, Registry } from 'prom-client';

/** The registry `/metrics/slis` serves. */
export const slisRegistry = new Registry();

const healthcheck = new Gauge({
  name: 'kubernetes_healthcheck',
  help: '[STABLE] This metric records the result of a single healthcheck.',
  labelNames: ['name', 'type'],
  registers: [slisRegistry],
});

const healthchecksTotal = new Counter({
  name: 'kubernetes_healthchecks_total',
  help: '[STABLE] This metric records the results of all healthcheck.',
  labelNames: ['name', 'status', 'type'],
  registers: [slisRegistry],
});

/** `check`, recording each outcome under `name` and `type` (`healthz`, or `readyz` for readiness-only checks). */
export function instrumentedCheck(name: string, check: HealthCheck, type = 'healthz'): HealthCheck {
  return async () => {
    try {
      await check();
    } catch (err) {
      healthcheck.set({ name, type }, 0);
      healthchecksTotal.inc({ name, status: 'error', type });
      throw err;
    }
    healthcheck.set({ name, type }, 1);
    healthchecksTotal.inc({ name, status: 'success', type });
  };
}

/** Drops the gauge of a check that was removed (a controller stopped), as its series would otherwise linger. */
export function forgetCheck(name: string, type = 'healthz'): void {
  healthcheck.remove({ name, type });
}
