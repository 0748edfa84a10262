/**
 * The load balancer under test in the data-plane tests (proxy, UDP, health-check node port, PROXY protocol,
 * IPv6): a LocalLoadBalancer over a real proxy data plane, a fake Service store and recorder, the Service port
 * the test listens on, and the clean-ups of what the test started on loopback (node servers, clients).
 */
import { RecordingEventRecorder } from '@ccm-kit/testing';
import type { LocalConfig } from '../src/config.js';
import { LocalLoadBalancer } from '../src/load-balancer.js';
import { ProxyDataPlane } from '../src/proxy/data-plane.js';
import { FakeServiceStore } from './fakes.js';

export interface DataPlaneFixture {
  readonly store: FakeServiceStore;
  readonly dataPlane: ProxyDataPlane;
  readonly lb: LocalLoadBalancer;
  /** The port of the Service's load balancer, free on its address when the fixture was made. */
  readonly svcPort: number;
  /** Adds clean-ups (servers, clients the test started) that `close()` runs, together. */
  defer(...cleanups: (() => Promise<unknown>)[]): void;
  /** Closes the data plane (its listeners and flows) first, then runs the clean-ups; for `afterEach`. */
  close(): Promise<void>;
}

/** A load balancer over a real proxy data plane (drain time from `config`) serving on `svcPort`. */
export function dataPlaneFixture(config: LocalConfig, svcPort: number): DataPlaneFixture {
  const store = new FakeServiceStore();
  const dataPlane = new ProxyDataPlane({ drainMs: config.drainTimeoutMs });
  const lb = new LocalLoadBalancer({
    config,
    store,
    recorder: new RecordingEventRecorder(),
    dataPlane,
    isRunning: (k) => dataPlane.get(k) !== undefined,
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  return {
    store,
    dataPlane,
    lb,
    svcPort,
    defer: (...more) => void cleanups.push(...more),
    async close() {
      await dataPlane.close();
      await Promise.all(cleanups.splice(0).map((c) => c()));
    },
  };
}
