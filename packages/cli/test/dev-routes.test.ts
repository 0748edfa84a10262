/** Routes in ccm-kit dev: the dev Nodes' Pod CIDRs, the CCM's route flags, and dev's line about the controller. */
import { createLogger, setLogFormat, setLogWriter } from '@ccm-kit/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { devOptions } from '../src/commands/dev.js';
import { DEV_CLUSTER_CIDR, devPodCIDRs, devRouteFlags, routeControllerNote } from '../src/dev/routes.js';

afterEach(() => {
  setLogWriter((line) => process.stderr.write(`${line}\n`));
  setLogFormat('text');
});

describe('ccm-kit dev routes', () => {
  it('gives dev-node-N the N-th /24 of the cluster CIDR', () => {
    expect(devPodCIDRs(DEV_CLUSTER_CIDR, 3)).toEqual(['10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24']);
    expect(devPodCIDRs('172.16.0.0/12', 2)).toEqual(['172.16.1.0/24', '172.16.2.0/24']);
    expect(devPodCIDRs('10.0.254.0/23', 1)).toEqual(['10.0.255.0/24']);
  });

  it.each([
    ['10.244.0.0/24', /not an IPv4 CIDR of \/8 to \/23/],
    ['fd00::/48', /not an IPv4 CIDR/],
    ['10.300.0.0/16', /not an IPv4 CIDR/],
    ['10.0.254.0/23', /no room for 2 \/24 Pod CIDRs/],
  ])('refuses --cluster-cidr %s naming the flag', (cidr, message) => {
    expect(() => devPodCIDRs(cidr, 2)).toThrow(message);
    expect(() => devPodCIDRs(cidr, 2)).toThrow(/^--cluster-cidr: /);
  });

  it('turns routes on for the local control plane and says so, with the Pod CIDRs', async () => {
    const opts = await devOptions(['--provider', 'acme', '--nodes', '2'], process.cwd());
    expect(opts.podCIDRs).toEqual(['10.244.1.0/24', '10.244.2.0/24']);
    const { flags, note } = devRouteFlags(opts);
    expect(flags).toEqual(['--configure-cloud-routes=true', '--cluster-cidr=10.244.0.0/16']);
    expect(note).toBe(
      '[ccm-kit dev] routes: --configure-cloud-routes=true --cluster-cidr=10.244.0.0/16, Pod CIDRs dev-node-1 10.244.1.0/24, dev-node-2 10.244.2.0/24; the node-route-controller runs if the provider has Routes',
    );
  });

  it('keeps routes off on an existing cluster and says how to turn them on', async () => {
    const opts = await devOptions(['--provider', 'acme', '--kubeconfig', '/dev/null'], process.cwd());
    expect(opts.podCIDRs).toEqual([]);
    const { flags, note } = devRouteFlags(opts);
    expect(flags).toEqual(['--configure-cloud-routes=false']);
    expect(note).toContain('-- --configure-cloud-routes=true --cluster-cidr=<its cluster CIDR>');
  });

  it.each(['text', 'json'] as const)(
    "turns the CCM's %s log lines about the node-route-controller into one line of dev's",
    (format) => {
      const lines: string[] = [];
      setLogWriter((l) => lines.push(l));
      setLogFormat(format);
      // The messages as the app (manager/controllers.ts) and the route descriptor log them.
      const log = createLogger('cloud-controller-manager');
      log.info(`Started ${JSON.stringify('node-route-controller')}`);
      log.warn(
        '--configure-cloud-routes is set, but cloud provider does not support routes. Will not configure cloud provider routes.',
      );
      log.info(`Started ${JSON.stringify('service-lb-controller')}`);
      expect(lines.map(routeControllerNote)).toEqual([
        '[ccm-kit dev] routes: on — the node-route-controller started',
        expect.stringMatching(/^\[ccm-kit dev\] routes: off — the provider has no Routes facet/),
        undefined,
      ]);
    },
  );
});
