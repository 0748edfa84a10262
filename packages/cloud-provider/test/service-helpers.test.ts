import {
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  addLBFinalizer,
  getLoadBalancerSourceRanges,
  getServiceHealthCheckPathPort,
  hasLBFinalizer,
  isAllowAll,
  LOAD_BALANCER_CLEANUP_FINALIZER,
  loadBalancerStatusEqual,
  needsHealthCheck,
  removeLBFinalizer,
  requestsOnlyLocalTraffic,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

const viaAnnotation = (v: string): V1Service => ({
  metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: v } },
});
const viaSpec = (v: string): V1Service => ({ spec: { loadBalancerSourceRanges: v.split(',') } });

describe('getLoadBalancerSourceRanges (upstream TestGetLoadBalancerSourceRanges)', () => {
  it.each(['10.0.0.1/33', 'foo.bar', '10.0.0.1/32,*', '10.0.0.1/32,', '10.0.0.1/32, ', '10.0.0.1'])(
    'SH-01 rejects %j as annotation and as spec',
    (input) => {
      expect(() => getLoadBalancerSourceRanges(viaAnnotation(input))).toThrow(
        `${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}: ${input.trim()} is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24`,
      );
      expect(() => getLoadBalancerSourceRanges(viaSpec(input))).toThrow(
        /^service\.Spec\.LoadBalancerSourceRanges: \[.*\] is not valid\. Expecting a list of IP ranges\. For example, 10\.0\.0\.0\/24\. Error msg: invalid CIDR address: /,
      );
    },
  );

  it('SH-01 names the specs and the bad item in the spec error', () => {
    expect(() => getLoadBalancerSourceRanges(viaSpec('10.0.0.1/32,10.0.0.1'))).toThrow(
      'service.Spec.LoadBalancerSourceRanges: [10.0.0.1/32 10.0.0.1] is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: invalid CIDR address: 10.0.0.1',
    );
  });

  it.each([
    ['SH-02', '192.168.0.1/32', 1],
    ['SH-03', '192.168.0.1/32,192.168.0.1/32', 1],
    ['SH-04', '192.168.0.1/32,192.168.0.2/32', 2],
    ['SH-05', '  192.168.0.1/32 , 192.168.0.2/32   ', 2],
  ])('%s %j gives %i CIDR(s), as annotation and as spec', (_id, input, n) => {
    expect(getLoadBalancerSourceRanges(viaAnnotation(input)).size).toBe(n);
    expect(getLoadBalancerSourceRanges(viaSpec(input)).size).toBe(n);
    expect(isAllowAll(getLoadBalancerSourceRanges(viaSpec(input)))).toBe(false);
  });

  it('SH-06 neither the field nor the annotation: allow all', () => {
    const ranges = getLoadBalancerSourceRanges({});
    expect([...ranges]).toEqual(['0.0.0.0/0']);
    expect(isAllowAll(ranges)).toBe(true);
  });

  it('SH-07 empty annotation: allow all', () => {
    const ranges = getLoadBalancerSourceRanges(viaAnnotation(''));
    expect(ranges.size).toBe(1);
    expect(isAllowAll(ranges)).toBe(true);
    expect(isAllowAll(getLoadBalancerSourceRanges(viaAnnotation('   ')))).toBe(true);
  });

  it('normalizes CIDRs (network address, canonical IPv6) and prefers the spec field', () => {
    const svc: V1Service = {
      metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: '1.2.3.0/24' } },
      spec: { loadBalancerSourceRanges: ['192.168.7.9/16', '2001:DB8:0:0::1/32', '010.0.0.0/8'] },
    };
    expect([...getLoadBalancerSourceRanges(svc)]).toEqual(['192.168.0.0/16', '2001:db8::/32', '10.0.0.0/8']);
  });
});

describe('isAllowAll (upstream TestAllowAll)', () => {
  it.each([
    [['10.0.0.1/32'], false],
    [['10.0.0.1/32', '10.0.0.2/32'], false],
    [['10.0.0.1/32', '10.0.0.1/32'], false],
    [['0.0.0.0/0'], true],
    [['192.168.0.0/0'], true],
    [['192.168.0.1/32', '0.0.0.0/0'], true],
    [['::/0'], false],
  ])('SH-08 %j -> %s', (ranges, want) => {
    expect(isAllowAll(ranges)).toBe(want);
  });
});

const svc = (type?: string, policy?: string, extra: Partial<NonNullable<V1Service['spec']>> = {}): V1Service => ({
  spec: { ...(type ? { type } : {}), ...(policy ? { externalTrafficPolicy: policy } : {}), ...extra },
});

describe('requestsOnlyLocalTraffic / needsHealthCheck', () => {
  it.each([
    ['empty service', {}, false],
    ['ClusterIP', svc('ClusterIP'), false],
    ['NodePort without policy', svc('NodePort'), false],
    ['NodePort with Cluster', svc('NodePort', 'Cluster'), false],
    ['LoadBalancer with Cluster', svc('LoadBalancer', 'Cluster'), false],
    ['NodePort with Local', svc('NodePort', 'Local'), true],
    ['LoadBalancer with Local', svc('LoadBalancer', 'Local'), true],
  ])('SH-09 requestsOnlyLocalTraffic: %s -> %s', (_n, s, want) => {
    expect(requestsOnlyLocalTraffic(s as V1Service)).toBe(want);
  });

  it.each([
    ['ClusterIP', svc('ClusterIP'), false],
    ['NodePort with Cluster', svc('NodePort', 'Cluster'), false],
    ['NodePort with Local', svc('NodePort', 'Local'), false],
    ['LoadBalancer with Cluster', svc('LoadBalancer', 'Cluster'), false],
    ['LoadBalancer with Local', svc('LoadBalancer', 'Local'), true],
  ])('SH-10 needsHealthCheck: %s -> %s', (_n, s, want) => {
    expect(needsHealthCheck(s)).toBe(want);
  });

  it('getServiceHealthCheckPathPort gives /healthz and the port only when needed and set', () => {
    expect(getServiceHealthCheckPathPort(svc('LoadBalancer', 'Local', { healthCheckNodePort: 30123 }))).toEqual({
      path: '/healthz',
      port: 30123,
    });
    expect(getServiceHealthCheckPathPort(svc('LoadBalancer', 'Local'))).toEqual({ path: '', port: 0 });
    expect(getServiceHealthCheckPathPort(svc('NodePort', 'Local', { healthCheckNodePort: 30123 }))).toEqual({
      path: '',
      port: 0,
    });
  });
});

const withFinalizers = (finalizers?: string[], spec: V1Service['spec'] = { type: 'LoadBalancer' }): V1Service => ({
  metadata: { name: 's', namespace: 'ns', ...(finalizers ? { finalizers } : {}) },
  spec,
});

describe('hasLBFinalizer (upstream TestHasLBFinalizer)', () => {
  it('SH-11 service without finalizer', () => {
    expect(hasLBFinalizer(withFinalizers())).toBe(false);
  });
  it('SH-12 service with unrelated finalizer', () => {
    expect(hasLBFinalizer(withFinalizers(['unrelated']))).toBe(false);
  });
  it('SH-13 service with one finalizer', () => {
    expect(hasLBFinalizer(withFinalizers([LOAD_BALANCER_CLEANUP_FINALIZER]))).toBe(true);
  });
  it('SH-14 service with multiple finalizers', () => {
    expect(hasLBFinalizer(withFinalizers([LOAD_BALANCER_CLEANUP_FINALIZER, 'unrelated']))).toBe(true);
  });
});

describe('finalizer add/remove and the service predicates', () => {
  it('addLBFinalizer appends once and returns a copy; undefined when already present', () => {
    const s = withFinalizers(['foo']);
    const added = addLBFinalizer(s);
    expect(added?.metadata?.finalizers).toEqual(['foo', LOAD_BALANCER_CLEANUP_FINALIZER]);
    expect(s.metadata?.finalizers).toEqual(['foo']);
    expect(addLBFinalizer(added as V1Service)).toBeUndefined();
  });

  it('removeLBFinalizer removes every occurrence; the list becomes undefined when empty', () => {
    const f = LOAD_BALANCER_CLEANUP_FINALIZER;
    expect(removeLBFinalizer(withFinalizers([f, 'x', f]))?.metadata?.finalizers).toEqual(['x']);
    const none = removeLBFinalizer(withFinalizers([f]));
    expect(none?.metadata).toBeDefined();
    expect(none?.metadata?.finalizers).toBeUndefined();
    expect(removeLBFinalizer(withFinalizers(['x']))).toBeUndefined();
  });
});

describe('loadBalancerStatusEqual (upstream TestLoadBalancerStatusEqual)', () => {
  const st = (...ingress: NonNullable<V1LoadBalancerStatus['ingress']>): V1LoadBalancerStatus => ({
    ingress,
  });
  it.each<[string, string, V1LoadBalancerStatus | undefined, V1LoadBalancerStatus | undefined, boolean]>([
    ['SH-17', 'empty', {}, {}, true],
    ['SH-18', 'same ip', st({ ip: '1.1.1.1' }), st({ ip: '1.1.1.1' }), true],
    ['SH-19', 'different ip', st({ ip: '1.1.1.1' }), st({ ip: '1.1.1.2' }), false],
    ['SH-20', 'same ipmode', st({ ip: '1.1.1.1', ipMode: 'VIP' }), st({ ip: '1.1.1.1', ipMode: 'VIP' }), true],
    ['SH-21', 'only one ipmode set', st({ ip: '1.1.1.1', ipMode: 'VIP' }), st({ ip: '1.1.1.1' }), false],
    ['SH-22', 'different ipmode', st({ ip: '1.1.1.1', ipMode: 'Proxy' }), st({ ip: '1.1.1.1', ipMode: 'VIP' }), false],
    [
      'SH-23',
      'same ports',
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }),
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }),
      true,
    ],
    [
      'SH-24',
      'same ports different protocol',
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }),
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'UDP' }] }),
      false,
    ],
    [
      'SH-25',
      'only one port',
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }),
      st({ ip: '1.1.1.1', ports: [] }),
      false,
    ],
    [
      'SH-26',
      'only one port (other side)',
      st({ ip: '1.1.1.1', ports: [] }),
      st({ ip: '1.1.1.1', ports: [{ port: 80, protocol: 'TCP' }] }),
      false,
    ],
    ['nil/empty', 'undefined and empty ingress lists are equal', undefined, st(), true],
    ['nil/empty', 'undefined and empty port lists are equal', st({ ip: 'a', ports: [] }), st({ ip: 'a' }), true],
    ['order', 'ingress order matters', st({ ip: 'a' }, { ip: 'b' }), st({ ip: 'b' }, { ip: 'a' }), false],
  ])('%s %s', (_id, _name, l, r, want) => {
    expect(loadBalancerStatusEqual(l, r)).toBe(want);
    expect(loadBalancerStatusEqual(r, l)).toBe(want);
  });
});
