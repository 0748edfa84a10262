import { loadBalancerService } from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_ALGORITHM,
  ANNOTATION_ALLOCATED_IPS,
  ANNOTATION_CONNECT_TIMEOUT,
  ANNOTATION_HEALTH_CHECK_INTERVAL,
  ANNOTATION_IPS,
  ANNOTATION_POOL,
  ANNOTATION_PROXY_PROTOCOL,
  ANNOTATION_SOURCE_RANGES,
  ANNOTATION_UDP_IDLE_TIMEOUT,
  formatProblems,
  LOCAL_ANNOTATIONS,
  type LoadBalancerOptions,
  type ParseResult,
  type Problem,
  parseAllocatedIPs,
  parseLoadBalancerOptions,
} from '../src/annotations.js';
import { parseConfig } from '../src/config.js';

const config = parseConfig(`
inventory: i.yaml
healthCheckInterval: 3s
connectTimeout: 2s
pools:
  - name: global
    addresses: [127.0.2.0/24, "fd00:2::/120"]
  - name: team
    namespaces: [team]
    addresses: [127.0.3.0/24]
`);
const noneConfig = { ...config, dataPlane: 'none' as const };

/** Service `s` (uid `u1`) with these annotations, spec fields and namespace. */
const svc = (
  annotations: Record<string, string> = {},
  spec: Partial<NonNullable<V1Service['spec']>> = {},
  namespace = 'default',
): V1Service => loadBalancerService('s', { namespace, uid: 'u1', annotations, spec });

function ok(result: ParseResult): LoadBalancerOptions {
  if (!result.ok) throw new Error(`unexpected problems: ${formatProblems(result.problems)}`);
  return result.options;
}

function problems(result: ParseResult): Problem[] {
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('parseLoadBalancerOptions', () => {
  it('applies the defaults from the config', () => {
    const o = ok(parseLoadBalancerOptions(svc(), config));
    expect(o.pool.name).toBe('global');
    expect(o).toMatchObject({
      families: [{ family: 'IPv4', required: true }],
      staticIPs: [],
      algorithm: 'round-robin',
      healthCheckIntervalMs: 3_000,
      connectTimeoutMs: 2_000,
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
    });
    expect(o.sourceRanges).toBeUndefined();
  });

  it('reads every annotation', () => {
    const o = ok(
      parseLoadBalancerOptions(
        svc(
          {
            [ANNOTATION_POOL]: 'team',
            [ANNOTATION_IPS]: ' 127.0.3.7 ',
            [ANNOTATION_ALGORITHM]: 'source-hash',
            [ANNOTATION_HEALTH_CHECK_INTERVAL]: '250ms',
            [ANNOTATION_CONNECT_TIMEOUT]: '1m',
            [ANNOTATION_SOURCE_RANGES]: '10.1.0.0/16, 192.168.0.1/24',
            [ANNOTATION_ALLOCATED_IPS]: '127.0.3.7',
          },
          {},
          'team',
        ),
        config,
      ),
    );
    expect(o.pool.name).toBe('team');
    expect(o.staticIPs).toEqual(['127.0.3.7']);
    expect(o.algorithm).toBe('source-hash');
    expect(o.healthCheckIntervalMs).toBe(250);
    expect(o.connectTimeoutMs).toBe(60_000);
    expect(o.sourceRanges).toEqual(['10.1.0.0/16', '192.168.0.0/24']);
  });

  it('follows ipFamilies and ipFamilyPolicy', () => {
    const fam = (spec: Partial<NonNullable<V1Service['spec']>>) =>
      ok(parseLoadBalancerOptions(svc({}, spec), config)).families;
    expect(fam({ ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' })).toEqual([{ family: 'IPv6', required: true }]);
    expect(fam({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' })).toEqual([
      { family: 'IPv4', required: true },
      { family: 'IPv6', required: false },
    ]);
    expect(fam({ ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack' })).toEqual([
      { family: 'IPv6', required: true },
      { family: 'IPv4', required: true },
    ]);
  });

  it('uses spec.loadBalancerIP when the ips annotation is absent, and source-hash for ClientIP affinity', () => {
    const o = ok(
      parseLoadBalancerOptions(svc({}, { loadBalancerIP: '127.0.2.9', sessionAffinity: 'ClientIP' }), config),
    );
    expect(o.staticIPs).toEqual(['127.0.2.9']);
    expect(o.algorithm).toBe('source-hash');
    const a = ok(
      parseLoadBalancerOptions(svc({ [ANNOTATION_IPS]: '127.0.2.10' }, { loadBalancerIP: '127.0.2.9' }), config),
    );
    expect(a.staticIPs).toEqual(['127.0.2.10']);
  });

  it('takes source ranges from the spec first, then the annotations', () => {
    const spec = { loadBalancerSourceRanges: ['10.0.0.0/8'] };
    const upstream = 'service.beta.kubernetes.io/load-balancer-source-ranges';
    expect(
      ok(parseLoadBalancerOptions(svc({ [ANNOTATION_SOURCE_RANGES]: '1.0.0.0/8' }, spec), config)).sourceRanges,
    ).toEqual(['10.0.0.0/8']);
    expect(ok(parseLoadBalancerOptions(svc({ [upstream]: '1.2.0.0/16' }), config)).sourceRanges).toEqual([
      '1.2.0.0/16',
    ]);
    // 0.0.0.0/0 means everyone, as upstream's IsAllowAll.
    expect(ok(parseLoadBalancerOptions(svc({ [upstream]: '0.0.0.0/0' }), config)).sourceRanges).toBeUndefined();
    // Alias and upstream annotation agreeing is fine.
    expect(
      ok(parseLoadBalancerOptions(svc({ [upstream]: '1.2.0.0/16', [ANNOTATION_SOURCE_RANGES]: '1.2.0.0/16' }), config))
        .sourceRanges,
    ).toEqual(['1.2.0.0/16']);
  });

  it('reports every invalid annotation together, naming each', () => {
    const p = problems(
      parseLoadBalancerOptions(
        svc({
          [ANNOTATION_POOL]: 'team',
          [ANNOTATION_ALGORITHM]: 'least-conn',
          [ANNOTATION_HEALTH_CHECK_INTERVAL]: '10ms',
          [ANNOTATION_CONNECT_TIMEOUT]: 'forever',
          [ANNOTATION_SOURCE_RANGES]: '10.0.0.1',
          'local.ccm-kit.io/algoritm': 'round-robin',
        }),
        config,
      ),
    );
    expect(p.every((x) => x.kind === 'annotation')).toBe(true);
    // The declared annotations in declaration order, then unknown ones (the parser's order), then the pool.
    expect(p.map((x) => x.field)).toEqual([
      ANNOTATION_ALGORITHM,
      ANNOTATION_HEALTH_CHECK_INTERVAL,
      ANNOTATION_CONNECT_TIMEOUT,
      ANNOTATION_SOURCE_RANGES,
      'local.ccm-kit.io/algoritm',
      ANNOTATION_POOL,
    ]);
    const text = formatProblems(p);
    expect(text).toContain('local.ccm-kit.io/algoritm: is unknown (did you mean local.ccm-kit.io/algorithm?)');
    expect(text).toContain('local.ccm-kit.io/pool: pool "team" is reserved for namespaces team');
    expect(text).toContain('local.ccm-kit.io/algorithm: "least-conn" is not one of "round-robin", "source-hash"');
    expect(text).toContain(
      'local.ccm-kit.io/health-check-interval: "10ms" is not a duration (e.g. 500ms, 2s, 1m30s) from 100ms to 1h',
    );
    expect(text).toContain('local.ccm-kit.io/connect-timeout: "forever" is not a duration');
    expect(text).toContain('local.ccm-kit.io/source-ranges: "10.0.0.1" is not a CIDR');
  });

  it('validates static addresses against the pool, families and policy', () => {
    const fields = (a: Record<string, string>, spec = {}) =>
      problems(parseLoadBalancerOptions(svc(a, spec), config)).map((p) => `${p.field}: ${p.message}`);
    expect(fields({ [ANNOTATION_IPS]: 'nope,127.0.9.1' })).toEqual([
      `${ANNOTATION_IPS}: "nope,127.0.9.1" "nope" is not an IP address; expected comma-separated IP addresses, at most one per family`,
    ]);
    expect(fields({ [ANNOTATION_IPS]: '127.0.9.1' })).toEqual([
      `${ANNOTATION_IPS}: 127.0.9.1 is not in pool "global" (127.0.2.0/24, fd00:2::/120)`,
    ]);
    expect(fields({ [ANNOTATION_IPS]: '127.0.2.1,127.0.2.2' })).toEqual([
      `${ANNOTATION_IPS}: "127.0.2.1,127.0.2.2" lists more than one IPv4 address; expected comma-separated IP addresses, at most one per family`,
    ]);
    expect(fields({ [ANNOTATION_IPS]: '127.0.2.1,fd00:2::5' })).toEqual([
      `${ANNOTATION_IPS}: lists two addresses but ipFamilyPolicy is SingleStack`,
    ]);
    expect(fields({ [ANNOTATION_IPS]: 'fd00:2::5' }, { ipFamilyPolicy: 'RequireDualStack' })).toEqual([
      `${ANNOTATION_IPS}: lists one address but ipFamilyPolicy RequireDualStack needs one of each family`,
    ]);
    expect(fields({ [ANNOTATION_IPS]: ' , ' })).toEqual([`${ANNOTATION_IPS}: is empty; remove it or list addresses`]);
    expect(fields({}, { loadBalancerIP: '10.9.9.9' })).toEqual([
      'spec.loadBalancerIP: 10.9.9.9 is not in pool "global" (127.0.2.0/24, fd00:2::/120)',
    ]);
    const dual = ok(
      parseLoadBalancerOptions(
        svc({ [ANNOTATION_IPS]: 'FD00:2::0005,127.0.2.1' }, { ipFamilyPolicy: 'PreferDualStack' }),
        config,
      ),
    );
    expect(dual.staticIPs).toEqual(['fd00:2::5', '127.0.2.1']);
  });

  it('rejects a conflict between the source-range alias and the upstream annotation', () => {
    const p = problems(
      parseLoadBalancerOptions(
        svc({
          'service.beta.kubernetes.io/load-balancer-source-ranges': '1.0.0.0/8',
          [ANNOTATION_SOURCE_RANGES]: '2.0.0.0/8',
        }),
        config,
      ),
    );
    expect(formatProblems(p)).toBe(
      'local.ccm-kit.io/source-ranges: disagrees with service.beta.kubernetes.io/load-balancer-source-ranges; set one of them',
    );
  });

  it('accepts UDP ports and rejects SCTP and missing node ports, in proxy mode only', () => {
    const spec = {
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
        { name: 'web', port: 80, protocol: 'TCP' },
        { port: 81, protocol: 'SCTP', nodePort: 30081 },
      ],
    };
    const p = problems(parseLoadBalancerOptions(svc({}, spec), config));
    expect(p.every((x) => x.kind === 'spec')).toBe(true);
    expect(formatProblems(p)).toBe(
      'spec.ports[1] (web): has no nodePort (allocateLoadBalancerNodePorts: false?); the proxy forwards to node ports; ' +
        'spec.ports[2]: protocol SCTP is not supported by the local proxy data plane (TCP and UDP only)',
    );
    expect(ok(parseLoadBalancerOptions(svc({}, { ports: [spec.ports[0]!] }), config)).ports).toEqual([
      { name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053 },
    ]);
    expect(ok(parseLoadBalancerOptions(svc({}, spec), noneConfig)).ports).toEqual([]);
  });

  it('reads the PROXY protocol, the UDP idle timeout and the health-check node port of ETP Local', () => {
    const defaults = ok(parseLoadBalancerOptions(svc(), config));
    expect(defaults.proxyProtocol).toBeUndefined();
    expect(defaults.udpIdleTimeoutMs).toBe(60_000);
    expect(defaults.healthCheck).toBeUndefined();
    const o = ok(
      parseLoadBalancerOptions(
        svc(
          { [ANNOTATION_PROXY_PROTOCOL]: 'v2', [ANNOTATION_UDP_IDLE_TIMEOUT]: '30s' },
          { externalTrafficPolicy: 'Local', healthCheckNodePort: 31999 },
        ),
        config,
      ),
    );
    expect(o).toMatchObject({
      proxyProtocol: 'v2',
      udpIdleTimeoutMs: 30_000,
      healthCheck: { port: 31999, path: '/healthz' },
    });
    expect(
      ok(parseLoadBalancerOptions(svc({}, { externalTrafficPolicy: 'Cluster', healthCheckNodePort: 31999 }), config))
        .healthCheck,
    ).toBeUndefined();
    const p = problems(
      parseLoadBalancerOptions(
        svc(
          { [ANNOTATION_PROXY_PROTOCOL]: 'true', [ANNOTATION_UDP_IDLE_TIMEOUT]: '2h' },
          { externalTrafficPolicy: 'Local' },
        ),
        config,
      ),
    );
    expect(formatProblems(p)).toBe(
      'local.ccm-kit.io/proxy-protocol: "true" is not one of "v1", "v2"; ' +
        'local.ccm-kit.io/udp-idle-timeout: "2h" is not a duration (e.g. 500ms, 2s, 1m30s) from 100ms to 1h; ' +
        'spec.healthCheckNodePort: is unset although externalTrafficPolicy is Local; the proxy checks nodes there',
    );
  });

  it('reads the allocation record, skipping garbage', () => {
    expect(parseAllocatedIPs(svc({ [ANNOTATION_ALLOCATED_IPS]: '127.0.2.1, x, FD00::1,127.0.2.1' }))).toEqual([
      '127.0.2.1',
      'fd00::1',
    ]);
    expect(parseAllocatedIPs(svc())).toEqual([]);
  });

  it('documents every annotation under the prefix', () => {
    expect(LOCAL_ANNOTATIONS.names.every((n) => n.startsWith('local.ccm-kit.io/'))).toBe(true);
    expect(LOCAL_ANNOTATIONS.names).toHaveLength(9);
  });
});
