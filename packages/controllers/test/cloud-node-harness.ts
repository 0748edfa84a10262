/**
 * Shared helpers of the cloud-node and cloud-node-lifecycle integration tests, on the test kit's
 * TestCluster: a shared Node informer on the file's control plane, Node creation that waits for the informer,
 * the controller started through its descriptor, and cleanup of the Nodes a test
 * created.
 */
import type { CloudProvider } from '@ccm-kit/cloud-provider';
import { createLogger } from '@ccm-kit/runtime';
import { ignoreNotFound, type TestCluster, uniqueName } from '@ccm-kit/testing';
import { type ControllerUnderTest, startControllerUnderTest, useTestCluster } from '@ccm-kit/testing/vitest';
import type { V1Node, V1NodeAddress, V1Taint } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../src/contract/controller-config.js';
import type { ControllerDescriptor } from '../src/contract/controller-context.js';

export const EXTRA_TAINT: V1Taint = { key: 'ImproveCoverageTaint', value: 'true', effect: 'NoSchedule' };
export const CLOUD_ADDRESSES: V1NodeAddress[] = [
  { type: 'Hostname', address: 'node0.cloud.internal' },
  { type: 'InternalIP', address: '10.0.0.1' },
  { type: 'ExternalIP', address: '132.143.154.163' },
];

/**
 * Registers the file's hooks (a control plane, a TestCluster with the Node informer started, the created
 * Nodes deleted after each test) and returns the env, usable inside tests and hooks.
 */
export function useNodeTestEnv(): NodeTestEnv {
  return new NodeTestEnv(
    useTestCluster({
      clientName: 'node-test',
      setup: (cluster) => {
        cluster.informers.nodes();
      },
    }),
  );
}

/** The per-file test environment on top of a control plane. */
export class NodeTestEnv {
  readonly #cluster: () => TestCluster;

  constructor(cluster: () => TestCluster) {
    this.#cluster = cluster;
  }

  get cluster(): TestCluster {
    return this.#cluster();
  }

  get clients() {
    return this.cluster.clients;
  }

  get core() {
    return this.cluster.core;
  }

  get informers() {
    return this.cluster.informers;
  }

  /** A unique Node name for this file. */
  name(prefix: string): string {
    return uniqueName(prefix);
  }

  /**
   * Starts `controller` on this env's clients and informers, as the app does; `stop()` it in the test.
   * The config is the upstream defaults with `config` over them.
   */
  startController(
    controller: ControllerDescriptor,
    cloud: CloudProvider,
    config: Partial<CloudControllerConfig> = {},
  ): Promise<ControllerUnderTest> {
    return startControllerUnderTest({ cloud, controller, config, cluster: this.cluster, logger: testLogger });
  }

  /** Creates a Node as a kubelet registers it and waits for the informer (`TestCluster.createNodeAndWait`). */
  createNode(node: V1Node): Promise<V1Node> {
    return this.cluster.createNodeAndWait(node);
  }

  /** Replaces the Node's status (for conditions set after creation) and waits for the informer. */
  async setStatus(name: string, status: V1Node['status']): Promise<V1Node> {
    const current = await this.core.readNode({ name });
    const updated = await this.core.replaceNodeStatus({ name, body: { ...current, status } });
    await this.waitForInformer(name, updated.metadata?.resourceVersion ?? '');
    return updated;
  }

  /** Waits until the informer's copy of `name` has at least `resourceVersion` (`TestCluster.waitForNode`). */
  waitForInformer(name: string, resourceVersion: string): Promise<void> {
    return this.cluster.waitForNode(name, resourceVersion);
  }

  /** The stored Node, or undefined when it does not exist. */
  getNode(name: string): Promise<V1Node | undefined> {
    return ignoreNotFound(this.core.readNode({ name }));
  }

  /** Core/v1 events in `default` about the named Node. */
  async nodeEvents(name: string) {
    const list = await this.core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items;
  }
}

/**
 * The Node's taints without `node.kubernetes.io/not-ready`, which the apiserver's TaintNodesByCondition
 * admission plugin adds to every Node created without a Ready=True condition (as for a real kubelet).
 */
export function userTaints(node: V1Node | undefined): V1Taint[] {
  return (node?.spec?.taints ?? []).filter((t) => t.key !== 'node.kubernetes.io/not-ready');
}

/** A quiet logger for controllers under test. */
export const testLogger = createLogger('node-test');
