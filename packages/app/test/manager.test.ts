/**
 * Start-up and shutdown ordering of startCloudControllerManager / runCloudControllerManager (upstream `k8s.io/cloud-provider app/controllermanager.go Run`,
 * upstream quirks 31 and 33 in docs/upstream-quirks.md), against an in-memory API server stand-in: provider initialize() errors, controller init
 * errors, a stop requested while starting, and leadership lost.
 */
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerCloudProvider, type CloudProvider } from '@ccm-kit/cloud-provider';
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  LeaderElectionLostError,
  runCloudControllerManager,
  startCloudControllerManager,
  StartupError,
} from '../src/index.js';
import { FakeCloud } from '@ccm-kit/testing';
import { useLogCapture } from '@ccm-kit/testing/vitest';
import { type FakeApiServer, startFakeApiServer } from './fake-apiserver.js';

/** Leader-election timings short enough for unit tests (lease 1 s, renew deadline 400 ms, retry 100 ms). */
const FAST_LEASE = [
  '--leader-elect-lease-duration=1s',
  '--leader-elect-renew-deadline=400ms',
  '--leader-elect-retry-period=100ms',
];
/** The test cloud, leader-elected with {@link FAST_LEASE}, running only `a-controller`. */
const ELECTED_A = ['--cloud-provider=test', '--secure-port=0', '--controllers=a-controller', ...FAST_LEASE];

/** The version in packages/app/package.json: what a bundle must print too (it used to print `vunknown`). */
const packageVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let api: FakeApiServer;
beforeEach(async () => {
  api = await startFakeApiServer();
});
afterEach(async () => {
  await api.close();
});

function testCloud(initialize?: CloudProvider['initialize']): CloudProvider & { initCalls: number } {
  const cloud = {
    initCalls: 0,
    providerName: () => 'test',
    hasClusterID: () => true,
    initialize(...args: Parameters<NonNullable<CloudProvider['initialize']>>) {
      cloud.initCalls++;
      return initialize?.(...args);
    },
  };
  return cloud;
}

/** A vendor controller that runs until its signal aborts, recording what happened. */
function recordingController(name: string, log: string[], opts: { initError?: Error } = {}): ControllerDescriptor {
  return {
    name,
    clientName: name,
    async init(ctx) {
      log.push(`init ${name}`);
      if (opts.initError) throw opts.initError;
      return {
        started: true,
        done: new Promise<void>((resolve) =>
          ctx.signal.addEventListener(
            'abort',
            () => {
              // Stopping takes a moment, as a real controller's drain does.
              setTimeout(() => {
                log.push(`stopped ${name}`);
                resolve();
              }, 50);
            },
            { once: true },
          ),
        ),
      };
    },
  };
}

const baseArgs = ['--cloud-provider=test', '--secure-port=0', '--leader-elect=false'];

/** Starts service-lb-gc-controller with a provider "nolist" whose LoadBalancer facet cannot list. */
function startCollectorWithoutListing(): Promise<unknown> {
  const cloud = new FakeCloud({ provider: 'nolist' });
  const facet = Object.assign(Object.create(cloud) as FakeCloud, { listLoadBalancers: undefined });
  cloud.loadBalancer = () => facet;
  return startCloudControllerManager({
    argv: [...baseArgs, '--controllers=service-lb-gc-controller'],
    cloud,
    kubeConfig: api.kubeConfig,
  });
}

describe('startCloudControllerManager start-up and shutdown ordering', () => {
  it('a provider initialize() error is fatal: the start rejects with it, and no controller starts', async () => {
    const log: string[] = [];
    const boom = new Error('cloud API unreachable');
    const starting = startCloudControllerManager({
      argv: [...baseArgs, '--controllers=a-controller'],
      cloud: testCloud(() => {
        throw boom;
      }),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', log)],
    });
    await expect(starting).rejects.toBe(boom);
    expect(log).toEqual([]);
  });

  it('a controller init error is fatal: the start rejects with it after the controllers started before it stopped', async () => {
    const log: string[] = [];
    const boom = new Error('bad vendor setting');
    const starting = startCloudControllerManager({
      argv: [...baseArgs, '--controllers=a-controller,b-controller'],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [
        recordingController('a-controller', log),
        recordingController('b-controller', log, { initError: boom }),
      ],
    });
    await expect(starting).rejects.toBe(boom);
    expect(log).toEqual(['init a-controller', 'init b-controller', 'stopped a-controller']);
  });

  it('service-lb-gc-controller named in --controllers with a provider that cannot list its load balancers: the start rejects naming the flag and the fix', async () => {
    const starting = startCollectorWithoutListing();
    await expect(starting).rejects.toThrow(
      '--controllers enables service-lb-gc-controller, but provider "nolist" does not implement LoadBalancer.listLoadBalancers; implement it (docs/interfaces/load-balancer.md) or remove service-lb-gc-controller from --controllers',
    );
  });

  it('a leader whose route controller lacks --cluster-cidr: the start rejects naming the flag', async () => {
    const starting = startCloudControllerManager({
      argv: [
        ...ELECTED_A.filter((a) => !a.startsWith('--controllers=')),
        '--controllers=route',
        '--allocate-node-cidrs',
        '--configure-cloud-routes',
      ],
      cloud: new FakeCloud(),
      kubeConfig: api.kubeConfig,
    });
    await expect(starting).rejects.toThrow(/cluster-cidr/);
    expect(api.requests.some((r) => r.path.includes('/leases'))).toBe(true);
  });

  it('a stop requested while the provider is still being built: nothing starts and done resolves', async () => {
    const stop = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const cloud = testCloud();
    registerCloudProvider('slow-test-provider', async () => {
      await gate;
      return cloud;
    });
    const log: string[] = [];
    const starting = startCloudControllerManager({
      argv: ['--cloud-provider=slow-test-provider', '--secure-port=0', '--controllers=a-controller'],
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', log)],
      signal: stop.signal,
    });
    stop.abort(); // SIGTERM while the provider factory runs
    release();
    const ccm = await starting;
    await ccm.done;
    expect(cloud.initCalls).toBe(0);
    expect(log).toEqual([]);
    // No lease was even attempted.
    expect(api.requests.filter((r) => r.path.includes('/leases'))).toEqual([]);
  });

  it('losing the lease rejects done with LeaderElectionLostError after the controllers stopped', async () => {
    const log: string[] = [];
    const ccm = await startCloudControllerManager({
      argv: ELECTED_A,
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', log)],
    });
    await vi.waitFor(() => expect(log).toEqual(['init a-controller']), { timeout: 5_000 });
    expect(ccm.isLeader()).toBe(true);
    api.failLeaseUpdates = true;
    await expect(ccm.done).rejects.toBeInstanceOf(LeaderElectionLostError);
    expect(log).toEqual(['init a-controller', 'stopped a-controller']);
    expect(ccm.isLeader()).toBe(false);
  });

  it('API requests identify as cloud-controller-manager, so managedFields name the same manager as upstream', async () => {
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const ccm = await startCloudControllerManager({
      argv: ['--cloud-provider=test', '--secure-port=0', '--controllers=a-controller'],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', [])],
    });
    await vi.waitFor(() => expect(ccm.isLeader()).toBe(true), { timeout: 5_000 });
    await ccm.stop();
    await ccm.done;
    stderr.mockRestore();
    // The app-level recorder logs its events too (StartStructuredLogging), as upstream.
    expect(written.join('')).toMatch(/"Event occurred".*kind="Lease".*reason="LeaderElection"/);
    const leaseCalls = api.requests.filter((r) => r.path.includes('/leases'));
    expect(leaseCalls.length).toBeGreaterThan(0);
    for (const r of leaseCalls) {
      // The API server names the field manager after the text before the first "/".
      expect(r.userAgent.split('/')[0]).toBe('cloud-controller-manager');
      expect(r.userAgent).toMatch(
        /^cloud-controller-manager\/v\d+\.\d+\.\d+\S* \([a-z0-9]+\/[a-z0-9]+\) ccm-kit\/leader-election$/,
      );
    }
  });
});

describe('start errors in the log', () => {
  const logLines = useLogCapture();

  it('a controller start error is logged once (as `Error starting "<name>"`), not again as a fatal error', async () => {
    const starting = startCollectorWithoutListing();
    await expect(starting).rejects.toThrow('does not implement LoadBalancer.listLoadBalancers');
    const mentions = logLines.filter((l) => l.includes('does not implement LoadBalancer.listLoadBalancers'));
    expect(mentions).toEqual([expect.stringMatching(/"Error starting \\"service-lb-gc-controller\\""/)]);
  });
});

describe('runCloudControllerManager exit status', () => {
  it('leadership lost: exits 1 with "leaderelection lost"', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const exit = vi.fn();
      const log: string[] = [];
      const running = runCloudControllerManager({
        argv: ELECTED_A,
        cloud: testCloud(),
        kubeConfig: api.kubeConfig,
        controllers: [recordingController('a-controller', log)],
        exit,
      });
      await vi.waitFor(() => expect(log).toEqual(['init a-controller']), { timeout: 5_000 });
      api.failLeaseUpdates = true;
      await running;
      expect(exit).toHaveBeenCalledExactlyOnceWith(1);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('Error: leaderelection lost');
    } finally {
      stderr.mockRestore();
    }
  });

  it('SIGTERM during start-up: exits 0 without initializing the provider', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const cloud = testCloud();
    registerCloudProvider('sigterm-test-provider', async () => {
      await gate;
      return cloud;
    });
    const exit = vi.fn();
    const running = runCloudControllerManager({
      argv: ['--cloud-provider=sigterm-test-provider', '--secure-port=0', '--leader-elect=false'],
      kubeConfig: api.kubeConfig,
      exit,
    });
    await vi.waitFor(() => expect(process.listenerCount('SIGTERM')).toBeGreaterThan(0));
    process.emit('SIGTERM', 'SIGTERM');
    release();
    await running;
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(cloud.initCalls).toBe(0);
  });
  it('SIGTERM with a provider shutdown hook that hangs: exits 0 once the bound has passed', async () => {
    let hookSignal: AbortSignal | undefined;
    const cloud = Object.assign(testCloud(), {
      shutdown(signal: AbortSignal) {
        hookSignal = signal;
        return new Promise<void>(() => {}); // never settles
      },
    });
    const exit = vi.fn();
    const running = runCloudControllerManager({
      argv: baseArgs,
      cloud,
      kubeConfig: api.kubeConfig,
      providerShutdownTimeoutMs: 200,
      exit,
    });
    await vi.waitFor(() => expect(process.listenerCount('SIGTERM')).toBeGreaterThan(0));
    process.emit('SIGTERM', 'SIGTERM');
    await running;
    expect(hookSignal?.aborted).toBe(true);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });
});

describe('leader migration (--enable-leader-migration, upstream `k8s.io/controller-manager pkg/leadermigration`)', () => {
  const leaseArgs = FAST_LEASE;

  it('runs migrated controllers under the migration lease, unowned ones nowhere, the rest under the main lease', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccm-lm-'));
    const file = join(dir, 'migration.yaml');
    await writeFile(
      file,
      [
        'kind: LeaderMigrationConfiguration',
        'apiVersion: controllermanager.config.k8s.io/v1',
        'leaderName: test-migration-lease',
        'controllerLeaders:',
        '  - {name: b-controller, component: "*"}',
        '  - {name: c-controller, component: kube-controller-manager}',
      ].join('\n'),
    );
    const log: string[] = [];
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=test',
        '--secure-port=0',
        '--controllers=a-controller,b-controller,c-controller',
        '--enable-leader-migration',
        `--leader-migration-config=${file}`,
        ...leaseArgs,
      ],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: ['a-controller', 'b-controller', 'c-controller'].map((n) => recordingController(n, log)),
    });
    await vi.waitFor(() => expect([...log].sort()).toEqual(['init a-controller', 'init b-controller']), {
      timeout: 5_000,
    });
    const leaseNames = new Set(
      api.requests.filter((r) => r.path.includes('/leases/')).map((r) => r.path.split('/').pop()),
    );
    expect(leaseNames).toEqual(new Set(['cloud-controller-manager', 'test-migration-lease']));
    // Losing only the migration lease is fatal too.
    api.failLeaseUpdates = 'test-migration-lease';
    const err = await ccm.done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect((err as Error).message).toBe('migration leaderelection lost');
    expect(log).toContain('stopped b-controller');
    expect(log).toContain('stopped a-controller');
  });

  it('without a config file the built-in default applies: lease cloud-provider-extraction-migration', async () => {
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=test',
        '--secure-port=0',
        '--controllers=a-controller',
        '--enable-leader-migration',
        ...leaseArgs,
      ],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', [])],
    });
    await vi.waitFor(
      () => expect(api.requests.some((r) => r.path.endsWith('/leases/cloud-provider-extraction-migration'))).toBe(true),
      { timeout: 5_000 },
    );
    await ccm.stop();
    await ccm.done;
  });

  it('a bad config file is a start-up error naming the flag, the file and each problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccm-lm-'));
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nresourceLock: endpoints\ncontrollerLeaders: [{name: x}]\n',
    );
    await expect(
      startCloudControllerManager({
        argv: [
          '--cloud-provider=test',
          '--secure-port=0',
          '--enable-leader-migration',
          `--leader-migration-config=${file}`,
        ],
        cloud: testCloud(),
        kubeConfig: api.kubeConfig,
      }),
    ).rejects.toThrow(
      `--leader-migration-config ${file}: leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration; ` +
        'resourceLock: Invalid value: "endpoints": resource Lock must be leases; ' +
        'controllerLeaders[0].component: Required value: component must be set for ControllerLeaderConfiguration',
    );
  });
});

describe('--use-service-account-credentials', () => {
  it("controllers act as their own kube-system service accounts with TokenRequest tokens, never the manager's credentials", async () => {
    const calls: string[] = [];
    const controller: ControllerDescriptor = {
      name: 'sa-test-controller',
      clientName: 'sa-test-controller',
      async init(ctx) {
        await ctx.clients
          .client('node-controller', CoreV1Api)
          .readNode({ name: 'n1' })
          .catch(() => calls.push('read'));
        return { started: true, done: new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r())) };
      },
    };
    const ccm = await startCloudControllerManager({
      argv: [...baseArgs, '--controllers=sa-test-controller', '--use-service-account-credentials'],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [controller],
    });
    await vi.waitFor(() => expect(calls).toEqual(['read']), { timeout: 5_000 });
    await ccm.stop();
    await ccm.done;
    const seq = api.requests
      .filter((r) => r.path.includes('serviceaccounts') || r.path === '/api/v1/nodes/n1')
      .map((r) => `${r.method} ${r.path} ${r.authorization}`);
    expect(seq).toEqual([
      'GET /api/v1/namespaces/kube-system/serviceaccounts/node-controller Bearer fake-token',
      'POST /api/v1/namespaces/kube-system/serviceaccounts Bearer fake-token',
      'POST /api/v1/namespaces/kube-system/serviceaccounts/node-controller/token Bearer fake-token',
      'GET /api/v1/nodes/n1 Bearer token-node-controller-1',
    ]);
    const read = api.requests.find((r) => r.path === '/api/v1/nodes/n1')!;
    expect(read.userAgent).toMatch(/ ccm-kit\/node-controller$/);
  });
});

describe('vendor replacement of a built-in (upstream `k8s.io/cloud-provider sample/basic_main.go`)', () => {
  it("the built-in's default client name is served as the vendor's client name", async () => {
    let done = false;
    const replacement: ControllerDescriptor = {
      name: 'node-route-controller',
      clientName: 'mycloud-external-route-controller',
      async init(ctx) {
        // What the built-in init does: ask for its default client name.
        await ctx.clients
          .client('route-controller', CoreV1Api)
          .readNode({ name: 'n1' })
          .catch(() => {});
        done = true;
        return { started: false, reason: 'test' };
      },
    };
    const ccm = await startCloudControllerManager({
      argv: [...baseArgs, '--controllers=node-route-controller'],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [replacement],
    });
    await vi.waitFor(() => expect(done).toBe(true), { timeout: 5_000 });
    await ccm.stop();
    await ccm.done;
    const read = api.requests.find((r) => r.path === '/api/v1/nodes/n1')!;
    expect(read.userAgent).toMatch(/ccm-kit\/mycloud-external-route-controller$/);
  });
});

describe('fractional Go durations (--leader-elect-renew-deadline with sub-millisecond precision)', () => {
  it('leads, renews and stops cleanly with a renew deadline of 400.5ms (used to exit 1: "delay" out of range)', async () => {
    const log: string[] = [];
    // As the lease-loss test's flags, with 0.5 ms more renew deadline.
    const fractionalLease = ['--leader-elect-lease-duration=1s', '--leader-elect-renew-deadline=400.5ms'];
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=test',
        '--secure-port=0',
        '--controllers=a-controller',
        ...fractionalLease,
        '--leader-elect-retry-period=100ms',
      ],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', log)],
    });
    await vi.waitFor(() => expect(ccm.isLeader()).toBe(true), { timeout: 5_000 });
    const renewals = () => api.requests.filter((r) => r.method === 'PUT' && r.path.includes('/leases/')).length;
    await vi.waitFor(() => expect(renewals()).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    expect(ccm.isLeader()).toBe(true);
    await ccm.stop();
    await expect(ccm.done).resolves.toBeUndefined();
    expect(log).toEqual(['init a-controller', 'stopped a-controller']);
  });
});

describe('the provider shutdown hook (CloudProvider.shutdown)', () => {
  it('is awaited after the controllers stopped and before stop() resolves, once', async () => {
    const log: string[] = [];
    const cloud = Object.assign(testCloud(), {
      async shutdown(signal: AbortSignal) {
        log.push(`shutdown begins (aborted: ${signal.aborted})`);
        await new Promise((r) => setTimeout(r, 200));
        log.push('shutdown ends');
      },
    });
    const ccm = await startCloudControllerManager({
      argv: [...baseArgs, '--controllers=a-controller'],
      cloud,
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', log)],
    });
    await vi.waitFor(() => expect(log).toEqual(['init a-controller']), { timeout: 5_000 });
    await ccm.stop();
    log.push('stop() resolved');
    await ccm.stop();
    await ccm.done;
    expect(log).toEqual([
      'init a-controller',
      'stopped a-controller',
      'shutdown begins (aborted: false)',
      'shutdown ends',
      'stop() resolved',
    ]);
  });

  it('a hanging hook is abandoned at providerShutdownTimeoutMs: its signal aborts and stop() resolves', async () => {
    let hookSignal: AbortSignal | undefined;
    const cloud = Object.assign(testCloud(), {
      shutdown(signal: AbortSignal) {
        hookSignal = signal;
        return new Promise<void>(() => {}); // never settles
      },
    });
    const ccm = await startCloudControllerManager({
      argv: [...baseArgs, '--controllers=a-controller'],
      cloud,
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', [])],
      providerShutdownTimeoutMs: 300,
    });
    const t0 = performance.now();
    await ccm.stop();
    await ccm.done;
    expect(hookSignal?.aborted).toBe(true);
    // It did wait for the bound before going on.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('a failing hook is logged, not thrown: done still resolves', async () => {
    const cloud = Object.assign(testCloud(), {
      shutdown() {
        throw new Error('could not flush');
      },
    });
    const ccm = await startCloudControllerManager({
      argv: baseArgs,
      cloud,
      kubeConfig: api.kubeConfig,
    });
    await ccm.stop();
    await expect(ccm.done).resolves.toBeUndefined();
  });

  it('runs when start-up fails after the provider was built (here: the secure port is taken)', async () => {
    let calls = 0;
    const cloud = Object.assign(testCloud(), {
      shutdown() {
        calls++;
      },
    });
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const err = await startCloudControllerManager({
        argv: ['--cloud-provider=test', '--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${port}`],
        cloud,
        kubeConfig: api.kubeConfig,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StartupError);
      expect(calls).toBe(1);
    } finally {
      taken.close();
    }
  });
});

describe("the vendor's command name and version (run options)", () => {
  it('go into the User-Agent of every API request', async () => {
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=test',
        '--secure-port=0',
        '--controllers=a-controller',
        '--leader-elect-retry-period=100ms',
      ],
      cloud: testCloud(),
      kubeConfig: api.kubeConfig,
      controllers: [recordingController('a-controller', [])],
      commandName: 'mycloud-cloud-controller-manager',
      version: '1.4.2',
    });
    await vi.waitFor(() => expect(api.requests.some((r) => r.path.includes('/leases/'))).toBe(true), {
      timeout: 5_000,
    });
    await ccm.stop();
    const agents = new Set(api.requests.map((r) => r.userAgent.split(' ')[0]));
    expect(agents).toEqual(new Set(['mycloud-cloud-controller-manager/v1.4.2']));
  });

  it('--version prints them, with the ccm-kit version it runs on', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const exit = vi.fn();
      await runCloudControllerManager({ argv: ['--version'], commandName: 'mycloud-ccm', version: 'v1.4.2', exit });
      await runCloudControllerManager({ argv: ['--version'], exit });
      expect(exit.mock.calls).toEqual([[0], [0]]);
      expect(out.mock.calls.map((c) => String(c[0]))).toEqual([
        `mycloud-ccm v1.4.2 (ccm-kit v${packageVersion})\n`,
        `cloud-controller-manager ccm-kit v${packageVersion}\n`,
      ]);
    } finally {
      out.mockRestore();
    }
  });

  it('--version=raw prints the version information as JSON and quits', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const exit = vi.fn();
      await runCloudControllerManager({ argv: ['--version=raw'], commandName: 'mycloud-ccm', version: '1.4.2', exit });
      expect(exit.mock.calls).toEqual([[0]]);
      expect(JSON.parse(String(out.mock.calls[0]![0]))).toMatchObject({
        command: 'mycloud-ccm',
        version: 'v1.4.2',
        ccmKitVersion: `v${packageVersion}`,
      });
    } finally {
      out.mockRestore();
    }
  });

  it('--help lists the controllers it would run, a vendor controller included', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const extra = { ...recordingController('mycloud-tagger', []), disabledByDefault: true };
      await runCloudControllerManager({
        argv: ['--help'],
        controllers: [extra],
        exit: vi.fn(),
      });
      const text = out.mock.calls.map((c) => String(c[0])).join('');
      expect(text).toMatch(
        /All controllers: cloud-node-controller, cloud-node-lifecycle-controller, mycloud-tagger, node-ipam-controller, node-route-controller, service-lb-controller, service-lb-gc-controller\n\s+Disabled-by-default controllers: mycloud-tagger, node-ipam-controller, service-lb-gc-controller \(default \[\*\]\)/,
      );
    } finally {
      out.mockRestore();
    }
  });

  it('--help names the command', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await runCloudControllerManager({ argv: ['--help'], commandName: 'mycloud-ccm', exit: vi.fn() });
      const text = out.mock.calls.map((c) => String(c[0])).join('');
      expect(text).toContain('Usage:\n  mycloud-ccm [flags]');
      expect(text).toContain('help for mycloud-ccm');
      expect(text).toContain('--bind-address ip');
    } finally {
      out.mockRestore();
    }
  });
});
