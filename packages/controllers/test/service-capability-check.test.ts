/**
 * The capability check of the service controller, field by field (docs/service-capabilities.md): which fields
 * refuse a Service, which only warn, and that an absent declaration or member checks nothing.
 */
import {
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  type LoadBalancerCapabilities,
  validateLoadBalancerCapabilities,
} from '@ccm-kit/cloud-provider';
import { loadBalancerService } from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  checkServiceCapabilities,
  type UnsupportedServiceField,
  unsupportedFieldsMessage,
} from '../src/service/capability-check.js';

/** A Service as the API server defaults it: one TCP port with a node port, IPv4 single-stack. */
const svc = (spec: Partial<NonNullable<V1Service['spec']>> = {}, annotations?: Record<string, string>): V1Service =>
  loadBalancerService('s', {
    namespace: 'ns',
    uid: 'u1',
    ...(annotations && { annotations }),
    spec: {
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      externalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      ...spec,
    },
  });

/** A declaration that supports nothing it names. */
const NOTHING: LoadBalancerCapabilities = {
  protocols: ['TCP'],
  mixedProtocols: false,
  loadBalancerSourceRanges: false,
  externalTrafficPolicyLocal: false,
  ipFamilies: ['IPv4'],
  dualStack: false,
  loadBalancerIP: false,
  allocateLoadBalancerNodePortsFalse: false,
  sessionAffinityClientIP: false,
};

/** A declaration that supports everything. */
const EVERYTHING: LoadBalancerCapabilities = {
  protocols: ['TCP', 'UDP', 'SCTP'],
  mixedProtocols: true,
  loadBalancerSourceRanges: true,
  externalTrafficPolicyLocal: true,
  ipFamilies: ['IPv4', 'IPv6'],
  dualStack: true,
  loadBalancerIP: true,
  allocateLoadBalancerNodePortsFalse: true,
  sessionAffinityClientIP: true,
  ipModes: ['VIP', 'Proxy'],
};

/** A Service that asks for every field. */
const ASKS_EVERYTHING = svc({
  ports: [
    { name: 'dns', port: 53, protocol: 'UDP' },
    { name: 'web', port: 80, protocol: 'TCP' },
    { name: 'sig', port: 3868, protocol: 'SCTP' },
  ],
  loadBalancerSourceRanges: ['10.0.0.0/8'],
  externalTrafficPolicy: 'Local',
  healthCheckNodePort: 31000,
  ipFamilies: ['IPv6', 'IPv4'],
  ipFamilyPolicy: 'RequireDualStack',
  loadBalancerIP: '192.0.2.10',
  allocateLoadBalancerNodePorts: false,
  sessionAffinity: 'ClientIP',
});

const fields = (out: readonly UnsupportedServiceField[]) => out.map((f) => f.field);

describe('checkServiceCapabilities', () => {
  it('checks nothing without a declaration (upstream behaviour)', () => {
    expect(checkServiceCapabilities(ASKS_EVERYTHING, undefined)).toEqual([]);
  });

  it('checks nothing for members the declaration leaves out', () => {
    expect(checkServiceCapabilities(ASKS_EVERYTHING, {})).toEqual([]);
  });

  it('finds nothing when every field is supported', () => {
    expect(checkServiceCapabilities(ASKS_EVERYTHING, EVERYTHING)).toEqual([]);
  });

  it('finds nothing for a plain TCP IPv4 Service, whatever is unsupported', () => {
    expect(checkServiceCapabilities(svc(), NOTHING)).toEqual([]);
  });

  it('names every unsupported field, refusals first, and refuses only for source ranges', () => {
    const out = checkServiceCapabilities(ASKS_EVERYTHING, NOTHING);
    expect(fields(out)).toEqual([
      'spec.loadBalancerSourceRanges',
      'spec.ports[0].protocol',
      'spec.ports[2].protocol',
      'spec.ports',
      'spec.externalTrafficPolicy',
      'spec.ipFamilies[0]',
      'spec.ipFamilyPolicy',
      'spec.loadBalancerIP',
      'spec.allocateLoadBalancerNodePorts',
      'spec.sessionAffinity',
    ]);
    expect(out.filter((f) => f.refuse).map((f) => f.field)).toEqual(['spec.loadBalancerSourceRanges']);
  });

  describe('loadBalancerSourceRanges (refuses)', () => {
    const no: LoadBalancerCapabilities = { loadBalancerSourceRanges: false };

    it('refuses spec.loadBalancerSourceRanges', () => {
      const [f] = checkServiceCapabilities(svc({ loadBalancerSourceRanges: ['10.0.0.0/8', ' 192.168.1.0/24'] }), no);
      expect(f).toEqual({
        field: 'spec.loadBalancerSourceRanges',
        value: '10.0.0.0/8,192.168.1.0/24',
        consequence: 'the load balancer would accept clients from every address',
        refuse: true,
      });
    });

    it('refuses the annotation when the field is empty', () => {
      const out = checkServiceCapabilities(svc({}, { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: ' 10.1.0.0/16 ' }), no);
      expect(out).toEqual([
        expect.objectContaining({
          field: `metadata.annotations[${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}]`,
          value: '10.1.0.0/16',
          refuse: true,
        }),
      ]);
    });

    it('names the field, not the annotation, when both are set (the field wins, as upstream)', () => {
      const out = checkServiceCapabilities(
        svc({ loadBalancerSourceRanges: ['10.0.0.0/8'] }, { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: '0.0.0.0/0' }),
        no,
      );
      expect(fields(out)).toEqual(['spec.loadBalancerSourceRanges']);
    });

    it('refuses ranges that do not parse: the Service still asks for a restriction', () => {
      expect(checkServiceCapabilities(svc({ loadBalancerSourceRanges: ['10.0.0.1'] }), no)[0]?.refuse).toBe(true);
      expect(
        checkServiceCapabilities(svc({}, { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: 'not-a-cidr' }), no)[0]?.refuse,
      ).toBe(true);
    });

    it('accepts ranges that admit every address of each family of the Service', () => {
      expect(checkServiceCapabilities(svc({ loadBalancerSourceRanges: ['0.0.0.0/0'] }), no)).toEqual([]);
      expect(checkServiceCapabilities(svc({}, { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: ' ' }), no)).toEqual([]);
      const dual = { ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' };
      expect(checkServiceCapabilities(svc({ ...dual, loadBalancerSourceRanges: ['0.0.0.0/0', '::/0'] }), no)).toEqual(
        [],
      );
    });

    it('refuses 0.0.0.0/0 alone for an IPv6 Service: IPv6 clients would be restricted', () => {
      const out = checkServiceCapabilities(svc({ ipFamilies: ['IPv6'], loadBalancerSourceRanges: ['0.0.0.0/0'] }), no);
      expect(out[0]?.refuse).toBe(true);
    });

    it('is not checked when supported or left out', () => {
      const ranged = svc({ loadBalancerSourceRanges: ['10.0.0.0/8'] });
      expect(checkServiceCapabilities(ranged, { loadBalancerSourceRanges: true })).toEqual([]);
      expect(checkServiceCapabilities(ranged, { sessionAffinityClientIP: false })).toEqual([]);
    });
  });

  describe('fields that warn and proceed', () => {
    it('protocols: each port of an unsupported protocol; an unset protocol is TCP', () => {
      const s = svc({ ports: [{ port: 80 }, { name: 'dns', port: 53, protocol: 'UDP' }] });
      expect(checkServiceCapabilities(s, { protocols: ['TCP'] })).toEqual([
        {
          field: 'spec.ports[1].protocol',
          value: 'UDP',
          consequence: 'port "dns" is not served (the provider serves TCP)',
          refuse: false,
        },
      ]);
      expect(checkServiceCapabilities(s, { protocols: ['UDP'] })).toEqual([
        expect.objectContaining({ field: 'spec.ports[0].protocol', value: 'TCP', refuse: false }),
      ]);
      expect(checkServiceCapabilities(s, { protocols: ['TCP', 'UDP'] })).toEqual([]);
    });

    it('mixedProtocols: ports of more than one protocol', () => {
      const mixed = svc({
        ports: [
          { port: 53, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      });
      expect(checkServiceCapabilities(mixed, { mixedProtocols: false })).toEqual([
        expect.objectContaining({ field: 'spec.ports', value: 'TCP,UDP', refuse: false }),
      ]);
      expect(checkServiceCapabilities(mixed, { mixedProtocols: true })).toEqual([]);
      const twoUdp = svc({
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 54, protocol: 'UDP' },
        ],
      });
      expect(checkServiceCapabilities(twoUdp, { mixedProtocols: false })).toEqual([]);
    });

    it('externalTrafficPolicy: Local', () => {
      const local = svc({ externalTrafficPolicy: 'Local', healthCheckNodePort: 31000 });
      expect(checkServiceCapabilities(local, { externalTrafficPolicyLocal: false })).toEqual([
        expect.objectContaining({ field: 'spec.externalTrafficPolicy', value: 'Local', refuse: false }),
      ]);
      expect(checkServiceCapabilities(local, { externalTrafficPolicyLocal: true })).toEqual([]);
      expect(checkServiceCapabilities(svc(), { externalTrafficPolicyLocal: false })).toEqual([]);
    });

    it('ipFamilies: each family the provider cannot give', () => {
      const v6 = svc({ ipFamilies: ['IPv6'] });
      expect(checkServiceCapabilities(v6, { ipFamilies: ['IPv4'] })).toEqual([
        {
          field: 'spec.ipFamilies[0]',
          value: 'IPv6',
          consequence: 'the load balancer gets no IPv6 address',
          refuse: false,
        },
      ]);
      expect(checkServiceCapabilities(v6, { ipFamilies: ['IPv4', 'IPv6'] })).toEqual([]);
    });

    it('dualStack: both families listed', () => {
      const dual = svc({ ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack' });
      expect(checkServiceCapabilities(dual, { dualStack: false })).toEqual([
        {
          field: 'spec.ipFamilyPolicy',
          value: 'PreferDualStack',
          consequence: 'the load balancer gets an address of one family only (IPv4)',
          refuse: false,
        },
      ]);
      expect(checkServiceCapabilities(dual, { dualStack: true })).toEqual([]);
      expect(checkServiceCapabilities(svc(), { dualStack: false })).toEqual([]);
    });

    it('loadBalancerIP', () => {
      expect(checkServiceCapabilities(svc({ loadBalancerIP: ' 192.0.2.1 ' }), { loadBalancerIP: false })).toEqual([
        expect.objectContaining({ field: 'spec.loadBalancerIP', value: '192.0.2.1', refuse: false }),
      ]);
      expect(checkServiceCapabilities(svc({ loadBalancerIP: '' }), { loadBalancerIP: false })).toEqual([]);
      expect(checkServiceCapabilities(svc({ loadBalancerIP: '192.0.2.1' }), { loadBalancerIP: true })).toEqual([]);
    });

    it('allocateLoadBalancerNodePorts: false, only when a port has no node port', () => {
      const noPorts = svc({
        allocateLoadBalancerNodePorts: false,
        ports: [{ name: 'a', port: 80, nodePort: 30080 }, { port: 81 }],
      });
      expect(checkServiceCapabilities(noPorts, { allocateLoadBalancerNodePortsFalse: false })).toEqual([
        {
          field: 'spec.allocateLoadBalancerNodePorts',
          value: 'false',
          consequence: 'the load balancer forwards to node ports, and ports[1] has none',
          refuse: false,
        },
      ]);
      const allHave = svc({ allocateLoadBalancerNodePorts: false });
      expect(checkServiceCapabilities(allHave, { allocateLoadBalancerNodePortsFalse: false })).toEqual([]);
      expect(checkServiceCapabilities(noPorts, { allocateLoadBalancerNodePortsFalse: true })).toEqual([]);
    });

    it('sessionAffinity: ClientIP', () => {
      const sticky = svc({ sessionAffinity: 'ClientIP' });
      expect(checkServiceCapabilities(sticky, { sessionAffinityClientIP: false })).toEqual([
        expect.objectContaining({ field: 'spec.sessionAffinity', value: 'ClientIP', refuse: false }),
      ]);
      expect(checkServiceCapabilities(sticky, { sessionAffinityClientIP: true })).toEqual([]);
    });

    it('ipModes is not a Service field: never checked against a Service', () => {
      expect(checkServiceCapabilities(ASKS_EVERYTHING, { ipModes: [] })).toEqual([]);
    });
  });
});

describe('unsupportedFieldsMessage', () => {
  it('says a refusal names the field, the provider, and that nothing is created or changed', () => {
    const out = checkServiceCapabilities(
      svc({ loadBalancerSourceRanges: ['10.0.0.0/8'], sessionAffinity: 'ClientIP' }),
      NOTHING,
    );
    expect(unsupportedFieldsMessage('acme', out)).toBe(
      'Refusing to ensure a load balancer: provider "acme" does not support spec.loadBalancerSourceRanges=10.0.0.0/8 (the load balancer would accept clients from every address); spec.sessionAffinity=ClientIP (the load balancer spreads one client over the nodes (kube-proxy still keeps its affinity)). No load balancer is created or changed until the Service no longer asks for it',
    );
  });

  it('says a warning proceeds', () => {
    const out = checkServiceCapabilities(svc({ loadBalancerIP: '192.0.2.1' }), NOTHING);
    expect(unsupportedFieldsMessage('acme', out)).toBe(
      'Provider "acme" does not support spec.loadBalancerIP=192.0.2.1 (the load balancer gets an address the provider picks); ensuring the load balancer without it',
    );
  });
});

describe('validateLoadBalancerCapabilities', () => {
  it('accepts the full declaration and the empty one', () => {
    expect(() => validateLoadBalancerCapabilities(EVERYTHING, 'p')).not.toThrow();
    expect(() => validateLoadBalancerCapabilities({}, 'p')).not.toThrow();
  });

  it.each([
    [null, 'must be an object'],
    [[], 'must be an object'],
    [{ sourceRanges: false }, 'unknown member "sourceRanges"'],
    [{ loadBalancerSourceRanges: 'no' }, 'loadBalancerSourceRanges must be true or false'],
    [{ protocols: ['TCP', 'HTTP'] }, 'protocols must be a list of TCP, UDP, SCTP'],
    [{ ipFamilies: 'IPv4' }, 'ipFamilies must be a list of IPv4, IPv6'],
    [{ ipModes: ['vip'] }, 'ipModes must be a list of VIP, Proxy'],
  ])('refuses %j naming the member', (value, text) => {
    expect(() => validateLoadBalancerCapabilities(value, 'acme')).toThrow(
      new RegExp(`load balancer capabilities of provider "acme".*${text.replace(/[()]/g, '\\$&')}`),
    );
  });
});
