/**
 * Leader election and the leader-elected controllers, as upstream `app.Run` + `leaderElectAndRun`: with
 * `--leader-elect`, a candidate for the main lease runs the main controllers while it leads; with leader
 * migration, a second candidate (same identity, started once the main lease is held) runs the migrated
 * controllers under the migration lease. Losing a lease is fatal (upstream exits with `leaderelection lost`).
 * Without `--leader-elect`, the controllers simply run.
 */
import { type Logger } from '@ccm-kit/runtime';
import { CoordinationV1Client } from '@ccm-kit/runtime/client';
import { type EventRecorder } from '@ccm-kit/runtime/events';
import { type LeaderCallbacks, LeaderElector } from '@ccm-kit/runtime/leader-election';
import { whenAborted } from '@ccm-kit/runtime/wait';
import type { LeaderElectionConfig } from '../options/config.js';
import type { ManagerClients } from './clients.js';
import type { ManagerHealth } from './health.js';
import type { LeaderElectedControllers } from './leader-elected.js';
import type { MigrationPlan } from './migration-plan.js';
import { LeaderElectionLostError } from './leader-election-lost.js';

/** What the election needs. */
export interface ElectionOptions {
  leaderElection: LeaderElectionConfig;
  clients: ManagerClients;
  recorder: EventRecorder;
  controllers: LeaderElectedControllers;
  plan: MigrationPlan;
  health: ManagerHealth;
  logger: Logger;
  /** Aborts on stop: candidates release their leases and controllers stop. */
  stop: AbortSignal;
  /** Aborts when the leader is deposed (`deposition.ts`): the controllers stop at once. */
  deposed: AbortSignal;
  /** Reports a fatal error (a controller init error, a lost lease); ignored once stopping. */
  fail: (err: unknown) => void;
}

/** A running election (or the controllers, without one). */
export interface ElectionRun {
  /** The main lease's candidate (undefined without `--leader-elect`). */
  readonly elector: LeaderElector | undefined;
  /** Ends when every candidate has stopped (without election: when the controllers have stopped). */
  readonly done: Promise<unknown>;
  /** Ends when the controllers of the current term(s) have stopped; stop waits for it as well. */
  termsDone(): Promise<unknown>;
  /** True while this replica leads (always true without leader election). */
  isLeader(): boolean;
  /**
   * Resolves once this replica has started: its controllers' inits returned (leading, or without leader
   * election), or it stands by (it observed another holder of the main lease), or the election ended.
   * Never rejects; a start error reaches the manager through `fail`.
   */
  readonly started: Promise<void>;
}

/** Runs every controller at once, without leader election (`--leader-elect=false`). */
export function runWithoutElection(o: ElectionOptions): ElectionRun {
  let started!: () => void;
  const startedOnce = new Promise<void>((r) => (started = r));
  const done = o.controllers.run(o.stop, o.plan.main, true, started).catch(o.fail);
  return {
    elector: undefined,
    done,
    termsDone: () => done,
    isLeader: () => true,
    started: Promise.race([startedOnce, done.then(() => {})]),
  };
}

/** Campaigns for the main lease (and the migration lease) until `stop` aborts. */
export function leaderElectAndRun(o: ElectionOptions): ElectionRun {
  const { plan, logger } = o;
  let leading = false;
  let mainTerm: Promise<void> = Promise.resolve();
  let migrationTerm: Promise<void> = Promise.resolve();
  let mainLeaseHeld!: () => void;
  const mainLeaseHeldOnce = new Promise<void>((r) => (mainLeaseHeld = r));
  let started!: () => void;
  const startedOnce = new Promise<void>((r) => (started = r));
  // The controllers of a term stop when leadership ends or when the leader is deposed.
  const termSignal = (signal: AbortSignal) => AbortSignal.any([signal, o.deposed]);

  const main = candidate(o, o.leaderElection.resourceName, undefined, {
    onStartedLeading: async (signal) => {
      leading = true;
      o.controllers.newTerm();
      if (plan.migration) {
        logger.info('leader migration: starting main controllers.');
        mainLeaseHeld();
      }
      mainTerm = o.controllers.run(termSignal(signal), plan.main, true, started).catch(o.fail);
      await mainTerm;
    },
    onStoppedLeading: () => {
      leading = false;
      o.health.setSynced(false);
      o.fail(new LeaderElectionLostError());
    },
    onNewLeader: (identity) => {
      logger.info('new leader elected', { identity });
      if (identity !== main.identity) started(); // standing by
    },
  });
  const runs: Promise<void>[] = [main.run(o.stop)];
  const migration = plan.migration;
  if (migration) {
    runs.push(
      (async () => {
        // As upstream: the migration lease is attempted only once the main lease is held.
        await Promise.race([mainLeaseHeldOnce, whenAborted(o.stop)]);
        if (o.stop.aborted) return;
        await candidate(o, migration.leaderName, main.identity, {
          onStartedLeading: async (signal) => {
            logger.info('leader migration: starting migrated controllers.');
            migrationTerm = o.controllers.run(termSignal(signal), plan.migrated, false).catch(o.fail);
            await migrationTerm;
          },
          onStoppedLeading: () => o.fail(new LeaderElectionLostError('migration leaderelection lost')),
        }).run(o.stop);
      })(),
    );
  }
  const done = Promise.all(runs);
  return {
    elector: main,
    done,
    started: Promise.race([startedOnce, done.then(() => {})]),
    termsDone: () => Promise.all([mainTerm, migrationTerm]),
    isLeader: () => leading,
  };
}

/** One candidate for lease `leaseName`; it releases the lease on stop, and records its events on the Lease. */
function candidate(
  o: ElectionOptions,
  leaseName: string,
  identity: string | undefined,
  callbacks: LeaderCallbacks,
): LeaderElector {
  const le = o.leaderElection;
  return new LeaderElector({
    client: o.clients.root.client('leader-election', CoordinationV1Client),
    lock: { namespace: le.resourceNamespace, name: leaseName },
    ...(identity ? { identity } : {}),
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    releaseOnCancel: true,
    // Leader-election events are about the Lease, so they land in its namespace.
    recordEvent: (message) =>
      o.recorder.event(
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: leaseName, namespace: le.resourceNamespace },
        },
        'Normal',
        'LeaderElection',
        message,
      ),
    callbacks,
  });
}
