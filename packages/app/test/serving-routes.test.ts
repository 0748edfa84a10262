/**
 * The secure port's routes beyond health (upstream `k8s.io/cloud-provider app/controllermanager.go Run`): /metrics/slis (health-check SLIs), /debug/flags/v
 * (only with --profiling), /configz (v1alpha1 under the configz name).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { getVerbosity, setVerbosity } from '@ccm-kit/runtime';
import { HealthChecks } from '@ccm-kit/runtime/health';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig } from '../src/options/config.js';
import { serviceRoutes } from '../src/serving/routes.js';
import { instrumentedCheck } from '../src/serving/slis.js';

const config = (argv: string[] = []) =>
  buildConfig(parseFlags(['--cloud-provider=x', ...argv], cloudControllerManagerFlagSets()), {
    controllers: [],
    controllerAliases: {},
    webhooks: [],
  });

function request(method: string, body = ''): IncomingMessage {
  return Object.assign(Readable.from(body ? [Buffer.from(body)] : []), {
    method,
    url: '/',
  }) as unknown as IncomingMessage;
}

describe('secure-port routes', () => {
  const before = getVerbosity();
  afterEach(() => setVerbosity(before));

  it('/metrics serves the process_* metrics upstream components expose and Node runtime metrics', async () => {
    const routes = serviceRoutes(new HealthChecks({ ping: false }), config());
    serviceRoutes(new HealthChecks({ ping: false }), config()); // a second server must not register twice
    const r = await routes['/metrics']!(request('GET'), new URLSearchParams());
    expect(r.status).toBe(200);
    const samples = new Map(
      String(r.body)
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => [l.split(/[{ ]/)[0]!, Number(l.split(' ').pop())]),
    );
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_virtual_memory_bytes',
      'process_start_time_seconds',
      'process_open_fds',
      'process_max_fds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(samples.has(name), name).toBe(true);
    }
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(1024 * 1024);
    expect(samples.get('process_open_fds')).toBeGreaterThan(0);
    const start = samples.get('process_start_time_seconds')!;
    expect(Math.abs(start - (Date.now() - process.uptime() * 1000) / 1000)).toBeLessThan(5);
  });

  it('/metrics/slis reports each health check: kubernetes_healthcheck and kubernetes_healthchecks_total', async () => {
    const health = new HealthChecks({ ping: false });
    let healthy = true;
    health.add(
      'slis-test-check',
      instrumentedCheck('slis-test-check', () => {
        if (!healthy) throw new Error('down');
      }),
    );
    const routes = serviceRoutes(health, config());
    await health.handle('/healthz');
    healthy = false;
    await health.handle('/healthz');
    const r = await routes['/metrics/slis']!(request('GET'), new URLSearchParams());
    expect(r.status).toBe(200);
    expect(r.body).toContain('kubernetes_healthcheck{name="slis-test-check",type="healthz"} 0');
    expect(r.body).toContain('kubernetes_healthchecks_total{name="slis-test-check",status="success",type="healthz"} 1');
    expect(r.body).toContain('kubernetes_healthchecks_total{name="slis-test-check",status="error",type="healthz"} 1');
  });

  it("/debug/flags/v: PUT sets the verbosity with klog's answers; other methods 406; absent without --profiling", async () => {
    const routes = serviceRoutes(new HealthChecks(), config());
    const put = routes['/debug/flags/v']!;
    expect(await put(request('PUT', '4'), new URLSearchParams())).toEqual({
      status: 200,
      body: 'successfully set klog.logging.verbosity to 4\n',
      contentType: 'text/plain',
    });
    expect(getVerbosity()).toBe(4);
    const bad = await put(request('PUT', 'x'), new URLSearchParams());
    expect([bad.status, bad.body]).toEqual([
      400,
      'failed set klog.logging.verbosity x: strconv.ParseInt: parsing "x": invalid syntax\n',
    ]);
    expect(getVerbosity()).toBe(4);
    expect((await put(request('GET'), new URLSearchParams())).status).toBe(406);
    expect(serviceRoutes(new HealthChecks(), config(['--profiling=false']))['/debug/flags/v']).toBeUndefined();
  });

  it('/debug/pprof/profile?seconds=N: a V8 CPU profile of N seconds, one at a time; /debug/pprof/heap: a heap snapshot; absent without --profiling', async () => {
    const routes = serviceRoutes(new HealthChecks(), config());
    const t0 = performance.now();
    const running = routes['/debug/pprof/profile']!(request('GET'), new URLSearchParams('seconds=1'));
    const busy = await routes['/debug/pprof/profile']!(request('GET'), new URLSearchParams('seconds=1'));
    expect([busy.status, busy.body]).toEqual([500, 'Could not enable CPU profiling: cpu profiling already in use\n']);
    const r = await running;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('application/json');
    const profile = JSON.parse(r.body) as { nodes: unknown[]; startTime: number; endTime: number; samples: number[] };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(900_000); // microseconds
    const heap = await routes['/debug/pprof/heap']!(request('GET'), new URLSearchParams());
    expect(heap.status).toBe(200);
    const snapshot = JSON.parse(heap.body) as { snapshot: { meta: { node_fields: string[] }; node_count: number } };
    expect(snapshot.snapshot.meta.node_fields).toContain('name');
    expect(snapshot.snapshot.node_count).toBeGreaterThan(1000);
    const off = serviceRoutes(new HealthChecks(), config(['--profiling=false']));
    expect(off['/debug/pprof/profile']).toBeUndefined();
    expect(off['/debug/pprof/heap']).toBeUndefined();
  }, 30_000); // a 1 s profile and a heap snapshot of the test worker

  it('/configz answers the v1alpha1 configuration under cloudcontrollermanager.config.k8s.io', async () => {
    const routes = serviceRoutes(new HealthChecks(), config(['--cluster-name=c1']));
    const r = await routes['/configz']!(request('GET'), new URLSearchParams());
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual(['cloudcontrollermanager.config.k8s.io']);
    expect(body['cloudcontrollermanager.config.k8s.io'].KubeCloudShared.ClusterName).toBe('c1');
  });
});
