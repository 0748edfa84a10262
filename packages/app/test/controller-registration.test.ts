/**
 * Vendor controllers (upstream `k8s.io/cloud-provider app/controllermanager.go ControllerInitFuncConstructor`; upstream `k8s.io/cloud-provider sample/basic_main.go`): a vendor descriptor with a built-in's name replaces the built-in,
 * and a different client name is honoured by the built-in's init (the sample's `mycloud-external-*` names).
 */
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { builtInControllers, defaultCloudControllerConfig, nodeRouteController } from '@ccm-kit/controllers';
import { createLogger } from '@ccm-kit/runtime';
import { HealthChecks } from '@ccm-kit/runtime/health';
import { type SharedInformerFactory } from '@ccm-kit/runtime/informers';
import { FakeCloud, memoryInformers } from '@ccm-kit/testing';
import { describe, expect, it } from 'vitest';
import { allControllers, StartupError } from '../src/index.js';
import { runControllers } from '../src/manager/controllers.js';

describe('vendor controller registration', () => {
  it('a vendor descriptor named like a built-in replaces it in place; two vendor descriptors of one name are an error', () => {
    const mine = { ...nodeRouteController, clientName: 'mycloud-external-route-controller' };
    const all = allControllers([mine]);
    expect(all.map((d) => d.name)).toEqual([
      ...builtInControllers.map((d) => d.name),
      'service-lb-gc-controller',
      'node-ipam-controller',
    ]);
    expect(all[3]).toBe(mine);
    const bare = { name: 'node-route-controller', clientName: 'x', init: nodeRouteController.init };
    expect(allControllers([bare])[3]!.aliases).toEqual(['route']);
    expect(() => allControllers([mine, mine])).toThrow(StartupError);
    expect(() => allControllers([mine, mine])).toThrow('controller "node-route-controller" is registered twice');
  });

  it("the replaced built-in's API client is the vendor's client name", async () => {
    const names: string[] = [];
    const clients: ControllerClientBuilder = {
      config: () => {
        throw new Error('unused');
      },
      client: (name, Api) => {
        names.push(name);
        return Object.create(Api.prototype);
      },
    };
    const informers = {
      ...memoryInformers(),
      start: () => {},
      waitForCacheSync: async () => true,
    } as unknown as SharedInformerFactory;
    const ac = new AbortController();
    const running = runControllers(
      {
        cloud: new FakeCloud(),
        clients,
        informers,
        descriptors: [{ ...nodeRouteController, clientName: 'mycloud-external-route-controller' }],
        clientRenames: new Map([['node-route-controller', ['route-controller', 'mycloud-external-route-controller']]]),
        selection: ['*'],
        config: { ...defaultCloudControllerConfig, clusterCIDR: '10.0.0.0/16' },
        health: new HealthChecks(),
        startIntervalMs: 0,
        logger: createLogger('test'),
        onSynced: () => ac.abort(),
      },
      ac.signal,
    );
    await running;
    expect(names).toEqual(['mycloud-external-route-controller']);
  });
});
