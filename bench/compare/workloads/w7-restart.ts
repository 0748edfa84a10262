/**
 * W7, restart: a converged cluster (N Nodes, M LoadBalancer Services, one route per Node) and a CCM with
 * every controller; the CCM is stopped (SIGTERM; fakebench saves the cloud's state, `FAKEBENCH_STATE_FILE`)
 * and started again, finding cluster and cloud as it left them. Measured on the second process only:
 * resync time (spawn → the last API request or cloud call other than the periodic ListRoutes, once both
 * have been quiet for 2 s), its cloud writes (Ensure/Update/EnsureDeleted LoadBalancer, Create/Delete
 * Route) and API writes. Upstream's service controller ensures every balancer again at start
 * (k8s.io/cloud-provider controllers/service/controller.go syncService), so M EnsureLoadBalancer calls
 * are expected; they must be equal across implementations, and the API must see no change.
 */
import { existsSync } from 'node:fs';
import { readApiTraffic } from '../audit.ts';
import { ALL_CONTROLLERS, ROUTE_FLAGS, SIZE, type Workload } from './workload.ts';
import { createCluster, spawnAndConverge } from './converged.ts';

const WRITES = ['EnsureLoadBalancer', 'UpdateLoadBalancer', 'EnsureLoadBalancerDeleted', 'CreateRoute', 'DeleteRoute'];
/** Calls that end the resync when they stop: everything but the periodic ListRoutes. */
const RESYNC = [...WRITES, 'InstanceMetadata', 'InstanceExists', 'InstanceShutdown', 'GetLoadBalancer'];
const QUIET_MS = 2_000;

export const w7: Workload = {
  id: 'W7',
  title:
    'W7: Restart against a converged cluster (second process only: wall = resync, spawn → last API request or cloud call once quiet; writes after the restart)',
  sizes: [SIZE.N, SIZE.M, SIZE.c],
  controllers: ALL_CONTROLLERS,
  flags: () => ROUTE_FLAGS,
  env: () => ({ FAKEBENCH_COUNTERS_INTERVAL_MS: '100' }),
  columns: [
    { key: 'cloudWrites', label: 'cloud writes after restart', digits: 0 },
    { key: 'ensureLb', label: 'of which EnsureLB', digits: 0 },
  ],
  timeoutMs: (s) => 180_000 + ((8 * (s.nodes + s.services)) / Math.max(s.qps, 1)) * 2000,
  async drive(h) {
    await createCluster(h);
    await spawnAndConverge(h, { routes: true });
    await h.stopCcm();
    if (!existsSync(h.files.stateFile)) throw new Error('the first CCM did not save the fake cloud state');
    const ccm = h.spawnCcm();
    const spawnedAt = ccm.startedAtMs;
    // Resynced when neither the cloud counters (but ListRoutes) nor the API traffic moved for QUIET_MS.
    let lastSum = -1;
    let lastCloudChange = spawnedAt;
    for (;;) {
      const c = await h.waitCounters('the first cloud call after the restart', (x) => x.firstCallMs > 0);
      const s = RESYNC.reduce((a, m) => a + (c.calls[m as keyof typeof c.calls] ?? 0), 0);
      const now = Date.now();
      if (s !== lastSum) [lastSum, lastCloudChange] = [s, now];
      const api = await readApiTraffic(h.files.auditLog, h.user.name, Infinity, spawnedAt);
      if (now - lastCloudChange >= QUIET_MS && now - Math.max(api.lastRequestMs, spawnedAt) >= QUIET_MS) {
        return {
          startMs: spawnedAt,
          endMs: Math.max(lastCloudChange, api.lastRequestMs),
          latenciesMs: [],
          apiFromMs: spawnedAt,
          extra: {},
          finalize: (f) => ({
            cloudWrites: WRITES.reduce((a, m) => a + (f.calls[m as keyof typeof f.calls] ?? 0), 0),
            ensureLb: f.calls.EnsureLoadBalancer ?? 0,
          }),
        };
      }
      if (now - spawnedAt > h.spec.timeoutMs) throw new Error('timed out waiting for the restarted CCM to go quiet');
      await new Promise((r) => setTimeout(r, 200));
    }
  },
};
