import type { CloudProvider, ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { FakeCloud, memoryInformers, RecordingLogger } from '@ccm-kit/testing';
import { eventually } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { builtInControllers } from '../src/builtin.js';
import { defaultCloudControllerConfig } from '../src/contract/controller-config.js';
import { type ControllerContext } from '../src/contract/controller-context.js';
import { ClusterCIDRError } from '../src/route/cluster-cidrs.js';
import { nodeRouteController } from '../src/route/descriptor.js';

function context(
  cloud: CloudProvider,
  config: Partial<ControllerContext['config']>,
  logger = new RecordingLogger({ verbosity: 0 }),
) {
  const clientCalls: string[] = [];
  const ac = new AbortController();
  const ctx: ControllerContext = {
    cloud,
    clients: {
      config: () => {
        throw new Error('unused');
      },
      client: (name: string, Api: new (...args: never[]) => unknown) => {
        clientCalls.push(name);
        return Object.create(Api.prototype);
      },
    } as ControllerClientBuilder,
    informers: memoryInformers(),
    config: { ...defaultCloudControllerConfig, ...config },
    signal: ac.signal,
    logger,
  };
  return { ctx, ac, clientCalls };
}

describe('nodeRouteController descriptor (app/core.go startRouteController)', () => {
  it('has the upstream name, alias and client name', () => {
    expect(nodeRouteController.name).toBe('node-route-controller');
    expect(nodeRouteController.aliases).toEqual(['route']);
    expect(nodeRouteController.clientName).toBe('route-controller');
  });

  it('builtInControllers lists the four descriptors in a stable order, with upstream names and aliases', () => {
    expect(builtInControllers.map((d) => [d.name, d.aliases, d.clientName])).toEqual([
      ['cloud-node-controller', ['cloud-node'], 'node-controller'],
      ['cloud-node-lifecycle-controller', ['cloud-node-lifecycle'], 'node-controller'],
      ['service-lb-controller', ['service'], 'service-controller'],
      ['node-route-controller', ['route'], 'route-controller'],
    ]);
    expect(builtInControllers[3]).toBe(nodeRouteController);
    expect(Object.isFrozen(builtInControllers)).toBe(true);
  });

  it('does not start when configureCloudRoutes is false, without looking at the CIDR', async () => {
    const logger = new RecordingLogger({ verbosity: 0 });
    const { ctx } = context(new FakeCloud(), { configureCloudRoutes: false, clusterCIDR: 'garbage' }, logger);
    await expect(nodeRouteController.init(ctx)).resolves.toEqual({
      started: false,
      reason: '--configure-cloud-routes is false',
    });
    expect(logger.lines).toEqual(['I Will not configure cloud provider routes, --configure-cloud-routes: false']);
  });

  it('does not start when the provider has no Routes facet (warning)', async () => {
    const logger = new RecordingLogger({ verbosity: 0 });
    const { ctx } = context(new FakeCloud({ disableRoutes: true }), { clusterCIDR: '' }, logger);
    const res = await nodeRouteController.init(ctx);
    expect(res.started).toBe(false);
    expect(res.reason).toBe('cloud provider does not support routes');
    expect(logger.lines[0]).toMatch(/^W --configure-cloud-routes is set, but cloud provider does not support routes/);
  });

  it.each([
    ['', /invalid CIDR\[0\] "".*required by the node-route-controller/],
    ['10.0.0.0/16,10.1.0.0/16', /not configured as dual stack/],
    ['10.0.0.0/16, fd00::/48', /invalid CIDR\[1\]/],
  ])('throws (fatal) for --cluster-cidr %j', async (cidr, msg) => {
    const { ctx } = context(new FakeCloud(), { clusterCIDR: cidr });
    const p = nodeRouteController.init(ctx);
    await expect(p).rejects.toThrow(ClusterCIDRError);
    await expect(p).rejects.toThrow(msg);
  });

  it('a non-positive --route-reconciliation-period is fatal in periodic mode (decision 0303), ignored in watch-based mode', async () => {
    const { ctx } = context(new FakeCloud(), { clusterCIDR: '10.120.0.0/16', routeReconciliationPeriodMs: 0 });
    await expect(nodeRouteController.init(ctx)).rejects.toThrow(
      'routeReconciliationPeriodMs (--route-reconciliation-period) must be > 0 ms, got 0',
    );
    const watch = context(new FakeCloud(), {
      clusterCIDR: '10.120.0.0/16',
      routeReconciliationPeriodMs: 0,
      featureGates: { CloudControllerManagerWatchBasedRoutesReconciliation: true },
    });
    const res = await nodeRouteController.init(watch.ctx);
    expect(res.started).toBe(true);
    watch.ac.abort();
    await res.done;
  });

  it('starts with a valid CIDR, uses the route-controller client, and done resolves after abort', async () => {
    const cloud = new FakeCloud();
    const { ctx, ac, clientCalls } = context(cloud, {
      clusterCIDR: '10.120.0.0/16',
      routeReconciliationPeriodMs: 50,
    });
    const res = await nodeRouteController.init(ctx);
    expect(res.started).toBe(true);
    expect(clientCalls).toEqual(['route-controller']);
    await eventually(() => expect(cloud.calls).toContain('list-routes'), { timeoutMs: 5_000, intervalMs: 5 });
    ac.abort();
    await expect(res.done).resolves.toBeUndefined();
  });
});
