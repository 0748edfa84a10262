/**
 * One controller running against a real kube-apiserver, started the way the app starts it (upstream
 * `k8s.io/cloud-provider/app/controllermanager.go` `startControllers`): `cloud.initialize(clients, stop)`,
 * the InformerUser hook, the descriptor's `init(ctx)` with a ControllerContext of the runtime's client
 * factory and shared informers, then the informers started and synced.
 */
import { type CloudProvider, isInformerUser } from '@ccm-kit/cloud-provider';
import type { CloudControllerConfig, ControllerDescriptor, ControllerStartResult } from '@ccm-kit/controllers';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { type ControlPlane, type ControlPlaneOptions, startControlPlane } from '../control-plane/control-plane.js';
import { TestCluster } from '../cluster/test-cluster.js';

/** Options of {@link startControllerUnderTest}. */
export interface ControllerUnderTestOptions {
  /** The provider the controller talks to, typically a `FakeCloud`. */
  readonly cloud: CloudProvider;
  /** The controller: a built-in descriptor or a vendor's. Only its public `init(ctx)` is used. */
  readonly controller: ControllerDescriptor;
  /** Settings over the upstream defaults (`defaultCloudControllerConfig`); durations in ms. */
  readonly config?: Partial<CloudControllerConfig>;
  /**
   * Where to run. A {@link TestCluster} is shared: its clients and informers outlive the controller (several
   * controllers in turn on one file's cluster). A {@link ControlPlane} gets a TestCluster of its own, stopped
   * with the controller. Absent: a new control plane is started (`controlPlaneOptions`) and stopped with it.
   */
  readonly cluster?: TestCluster | ControlPlane;
  /** Options of the control plane started when `cluster` is absent. */
  readonly controlPlaneOptions?: ControlPlaneOptions;
  /** The logger the controller derives from (default: `createLogger('controller-under-test')`). */
  readonly logger?: Logger;
}

/** A running controller; {@link stop} (or `await using`) stops it and what was started for it. */
export interface ControllerUnderTest {
  /** The clients, informers and cleanup the controller runs on. */
  readonly cluster: TestCluster;
  /** What the controller's `init` returned (`started: false` with a `reason` when it chose not to run). */
  readonly result: ControllerStartResult;
  /** The ControllerContext's signal; aborts on {@link stop}. */
  readonly signal: AbortSignal;
  /**
   * Aborts the controller's context, waits for its loops (`result.done`), then stops the TestCluster and the
   * control plane if this fixture created them. Safe to call twice.
   */
  stop(): Promise<void>;
  /** The same as {@link ControllerUnderTest.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts `controller` against a real API server and returns once its informers have synced (or at once when
 * `init` returned `started: false`).
 * @throws the error of `cloud.initialize()` or of `init` (after stopping what this call started), or
 *   `ControlPlaneStartError` when a new control plane cannot start.
 */
export async function startControllerUnderTest(opts: ControllerUnderTestOptions): Promise<ControllerUnderTest> {
  const ownControlPlane = opts.cluster === undefined ? await startControlPlane(opts.controlPlaneOptions) : undefined;
  const given = opts.cluster ?? ownControlPlane!;
  const cluster = given instanceof TestCluster ? given : new TestCluster(given);
  const ownCluster = cluster !== given;
  const abort = new AbortController();
  const signal = AbortSignal.any([abort.signal, cluster.signal]);
  let result: ControllerStartResult | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      abort.abort();
      await result?.done;
      if (ownCluster) await cluster.stop();
      await ownControlPlane?.stop();
    })());
  try {
    // Loaded here, so that `@ccm-kit/testing/vitest` works without @ccm-kit/controllers (an optional peer).
    const { defaultCloudControllerConfig } = await import('@ccm-kit/controllers');
    const { cloud, controller } = opts;
    await cloud.initialize?.(cluster.clients, signal);
    if (isInformerUser(cloud)) cloud.setInformers(cluster.informers);
    result = await controller.init({
      cloud,
      clients: cluster.clients,
      informers: cluster.informers,
      config: { ...defaultCloudControllerConfig, ...opts.config },
      signal,
      logger: (opts.logger ?? createLogger('controller-under-test')).with({}, controller.name),
    });
    if (result.started) await cluster.startInformers();
  } catch (err) {
    await stop();
    throw err;
  }
  const started = result;
  return { cluster, result: started, signal, stop, [Symbol.asyncDispose]: stop };
}
