/**
 * The paths of the secure port: /healthz, /livez, /readyz (and `/<endpoint>/<check>`), /metrics,
 * /metrics (with the process_* and nodejs_* metrics), /metrics/slis, /configz and, with `--profiling`, /debug/flags/v,
 * /debug/pprof/profile and /debug/pprof/heap.
 * Upstream's CCM serves only /healthz; ccm-kit adds /livez and /readyz (docs/decisions/0001-health-endpoints.md).
 */
import { collectProcessMetrics, metricsRegistry } from '@ccm-kit/runtime';
import { type HealthChecks } from '@ccm-kit/runtime/health';
import type { CloudControllerManagerConfig } from '../options/config.js';
import { configzBody } from '../options/configz.js';
import { debugFlagsVerbosity } from './debug-flags.js';
import { debugPprofHeap, debugPprofProfile } from './debug-pprof.js';
import { slisRegistry } from './slis.js';
import type { RouteHandler } from './secure-server.js';

/** The route table for {@link startSecureServer}. */
export function serviceRoutes(
  health: HealthChecks,
  config: CloudControllerManagerConfig,
): Record<string, RouteHandler> {
  // process_* and nodejs_* next to the controllers' metrics, as upstream serves process_* and go_*.
  collectProcessMetrics(metricsRegistry);
  const healthRoute: RouteHandler = async (req, query) => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const r = await health.handle(path, query);
    return r
      ? { status: r.status, body: r.body, contentType: r.headers['Content-Type'] }
      : { status: 404, body: '404 page not found\n' };
  };
  return {
    '/healthz': healthRoute,
    '/healthz/': healthRoute,
    '/livez': healthRoute,
    '/livez/': healthRoute,
    '/readyz': healthRoute,
    '/readyz/': healthRoute,
    '/metrics': async () => ({
      status: 200,
      body: await metricsRegistry.metrics(),
      contentType: metricsRegistry.contentType,
    }),
    '/metrics/slis': async () => ({
      status: 200,
      body: await slisRegistry.metrics(),
      contentType: slisRegistry.contentType,
    }),
    '/configz': () => ({ status: 200, contentType: 'application/json', body: configzBody(config) }),
    // As upstream, with --profiling (the default); /debug/pprof answers with V8's profile formats, not Go's
    // (docs/decisions/0009-serving-differences.md).
    ...(config.profiling
      ? {
          '/debug/flags/v': debugFlagsVerbosity,
          '/debug/pprof/profile': debugPprofProfile,
          '/debug/pprof/heap': debugPprofHeap,
        }
      : {}),
  };
}
