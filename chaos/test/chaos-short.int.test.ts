/**
 * The short chaos profile as one integration test: real kube-apiserver and etcd (restarted), two mockcloud
 * CCM processes with leader election (killed, stopped, paused), a cloud that fails 10 % of calls, and random
 * Service/Node/machine operations; every invariant must hold (see chaos/README.md). The CCMs also run
 * node-ipam-controller (`--ipam`): no Pod CIDR on two Nodes, every Node allocated once settled. Uses the built
 * dist/ of examples/mockcloud (`npm test` runs `tsc -b` first).
 */
import { expect, it } from 'vitest';
import { runChaos } from '../src/chaos.ts';
import { profiles } from '../src/profiles.ts';
import { formatReport } from '../src/report.ts';

it('short chaos profile with node IPAM: no leaked load balancer, no wrongly deleted Node, no action from a non-holder, no overlapping calls on a load-balancer group, no shared Pod CIDR, settles', async () => {
  const seed = Number(process.env.CHAOS_SEED ?? 20261124);
  const result = await runChaos(profiles.short, seed, undefined, { ipam: true });
  const report = formatReport(result);
  // The report names the seed and the operations behind any violation.
  expect(result.violations, report).toEqual([]);
  expect(result.ok).toBe(true);
  // Refused Services lived through the run (decision 0205), so "no load balancer for a refused Service" was checked.
  expect(result.converged.refusedServices, report).toBeGreaterThan(0);
  expect(result.settleMs, report).toBeDefined();
  // Every Node of the settled cluster was checked for a Pod CIDR.
  expect(result.converged.allocatedNodes, report).toBe(result.converged.nodes);
  // The CCMs group the Services by namespace (decision 0207): their load-balancer calls were checked for overlaps.
  expect(result.safety.groupCalls, report).toBeGreaterThan(0);
  expect(result.faults.filter((f) => !f.detail?.startsWith('skipped')).length, report).toBeGreaterThanOrEqual(6);
}, 300_000);
