/**
 * The flags of node-ipam-controller: upstream's names, types, defaults and help (the `nodeipam controller`
 * section of upstream's sample CCM), parsed into `controllerConfig.nodeIPAM`, and `--service-cluster-ip-range`
 * checked before anything starts.
 */
import { defaultNodeIPAMConfig } from '@ccm-kit/controllers';
import { registeredControllers } from '@ccm-kit/controllers/internal';
import { describe, expect, it } from 'vitest';
import { formatHelp } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets, helpNames } from '../src/options/ccm-flags.js';
import { configure } from '../src/options/configure.js';
import { baseArgv, problemsOf } from './config-problems.js';

const all = registeredControllers;

describe('node-ipam-controller flags', () => {
  it('are listed in the "nodeipam controller" section with upstream help; the controller is disabled by default', () => {
    const help = formatHelp(cloudControllerManagerFlagSets(helpNames(all, [])));
    const section = help.slice(help.indexOf('Nodeipam controller flags:'));
    expect(section).toContain('--node-cidr-mask-size int32');
    expect(section).toContain('Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.');
    expect(section).toContain('Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.');
    expect(section).toContain('--service-cluster-ip-range string');
    expect(help).toMatch(/Disabled-by-default controllers: node-ipam-controller/);
  });

  it('default to every flag unset and land in controllerConfig.nodeIPAM', () => {
    expect(configure(baseArgv, all).controllerConfig.nodeIPAM).toEqual(defaultNodeIPAMConfig);
    const c = configure(
      [
        ...baseArgv,
        '--service-cluster-ip-range=10.96.0.0/12,fd00:96::/112',
        '--node-cidr-mask-size-ipv4=26',
        '--node-cidr-mask-size-ipv6=80',
        '--cidr-allocator-type=RangeAllocator',
      ],
      all,
    );
    expect(c.controllerConfig.nodeIPAM).toEqual({
      cidrAllocatorType: 'RangeAllocator',
      serviceClusterIPRange: '10.96.0.0/12,fd00:96::/112',
      nodeCIDRMaskSize: 0,
      nodeCIDRMaskSizeIPv4: 26,
      nodeCIDRMaskSizeIPv6: 80,
    });
  });

  it.each([
    [
      '--service-cluster-ip-range=10.96.0.0/12,fd00::/112,10.0.0.0/16',
      '--service-cluster-ip-range can not contain more than two entries',
    ],
    [
      '--service-cluster-ip-range=10.96.0.0/33',
      '--service-cluster-ip-range: "10.96.0.0/33" is not a CIDR (for example 10.96.0.0/12)',
    ],
    [
      '--service-cluster-ip-range=10.96.0.0/12,10.0.0.0/16',
      '--service-cluster-ip-range: serviceCIDR and secondaryServiceCIDR are not dualstack (from different IPfamiles); give one IPv4 and one IPv6 range',
    ],
  ])('%s is refused before anything starts', (flag, problem) => {
    expect(problemsOf([flag])).toEqual([problem]);
  });

  it('a negative mask size is refused while parsing, naming the flag', () => {
    expect(() => configure([...baseArgv, '--node-cidr-mask-size-ipv4=-1'], all)).toThrow(/node-cidr-mask-size-ipv4/);
  });
});
