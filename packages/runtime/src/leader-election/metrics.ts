/** Leader election metrics with client-go's names (tools/leaderelection/metrics.go), in {@link metricsRegistry}. */
import { Gauge } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';

/** `leader_election_master_status{name}`: 1 while this process leads the named lock, else 0. */
export const leaderElectionMasterStatus =
  (metricsRegistry.getSingleMetric('leader_election_master_status') as Gauge<'name'> | undefined) ??
  new Gauge({
    name: 'leader_election_master_status',
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ['name'] as const,
    registers: [metricsRegistry],
  });
