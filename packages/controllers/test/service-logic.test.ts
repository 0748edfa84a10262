/**
 * Pure logic of the service load-balancer controller: upstream controllers/service/controller_test.go
 * scenarios SVC-43..46, 48..68, 77..137 (upstream `k8s.io/cloud-provider controllers/service/controller_test.go`), plus the patch shapes of upstream `k8s.io/cloud-provider service/helpers/helper.go`.
 */
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '@ccm-kit/cloud-provider';
import { MemoryInformer } from '@ccm-kit/testing';
import { ApiException, type V1Node, type V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { errorText } from '../src/service/error-text.js';
import { parseGoBool } from '../src/service/go-bool.js';
import { needsUpdate, needsUpdateReason } from '../src/service/needs-update.js';
import {
  allNodePredicates,
  formatGoStringSlice,
  listWithPredicates,
  loggableNodeNames,
  nodeNotDeletedPredicate,
  nodesSufficientlyEqual,
  respectsPredicates,
  shouldSyncUpdatedNode,
  stableNodeSetPredicates,
} from '../src/service/host-predicates.js';
import { serviceQueueRateLimiter } from '../src/service/queue-backoff.js';
import { ServiceCache } from '../src/service/service-cache.js';
import { needsCleanup, wantsLoadBalancer } from '../src/service/service-ownership.js';
import { makeNode, newService } from './service-fixtures.js';

const EXCLUDE = 'node.kubernetes.io/exclude-from-external-load-balancers';
const TO_BE_DELETED = 'ToBeDeletedByClusterAutoscaler';

describe('parseGoBool', () => {
  it('accepts exactly the spellings of strconv.ParseBool', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseGoBool(t)).toBe(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseGoBool(f)).toBe(false);
    for (const bad of ['', 'yes', 'no', 'tRUE', ' true', 'foo']) expect(parseGoBool(bad)).toBeUndefined();
  });
});

describe('serviceQueueRateLimiter (upstream minRetryDelay, maxRetryDelay)', () => {
  it('5 s × 2^n up to 300 s', () => {
    const rl = serviceQueueRateLimiter<string>();
    expect(Array.from({ length: 8 }, () => rl.when('ns/svc'))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
    ]);
  });
});

describe('wantsLoadBalancer and loadBalancerClass', () => {
  it('upstream: only type LoadBalancer without any class (an empty class opts out)', () => {
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer'))).toBe(true);
    expect(wantsLoadBalancer(newService('a', 'ClusterIP'))).toBe(false);
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer', { spec: { loadBalancerClass: '' } }))).toBe(false);
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer', { spec: { loadBalancerClass: 'x' } }))).toBe(false);
  });
  it('beyond upstream: the configured class is served instead of class-less Services', () => {
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer', { spec: { loadBalancerClass: 'x' } }), 'x')).toBe(true);
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer'), 'x')).toBe(false);
    expect(wantsLoadBalancer(newService('a', 'LoadBalancer', { spec: { loadBalancerClass: 'y' } }), 'x')).toBe(false);
    expect(wantsLoadBalancer(newService('a', 'NodePort', { spec: { loadBalancerClass: 'x' } }), 'x')).toBe(false);
  });
});

describe('needsCleanup (TestNeedsCleanup)', () => {
  const withFinalizer = (type: string, deleting = false): V1Service => {
    const svc = newService('s', type);
    svc.metadata!.finalizers = [LOAD_BALANCER_CLEANUP_FINALIZER];
    if (deleting) svc.metadata!.deletionTimestamp = new Date();
    return svc;
  };
  it('SVC-43: service without finalizer', () => {
    expect(needsCleanup(newService('s', 'LoadBalancer'))).toBe(false);
  });
  it('SVC-44: service with finalizer without timestamp without LB', () => {
    expect(needsCleanup(withFinalizer('NodePort'))).toBe(true);
  });
  it('SVC-45: service with finalizer without timestamp with LB', () => {
    expect(needsCleanup(withFinalizer('LoadBalancer'))).toBe(false);
  });
  it('SVC-46: service with finalizer with timestamp', () => {
    expect(needsCleanup(withFinalizer('', true))).toBe(true);
  });
});

describe('needsUpdate (TestNeedsUpdate)', () => {
  const lb = () => newService('external-balancer', 'LoadBalancer');
  const pair = (mut: (o: V1Service, n: V1Service) => void): [V1Service, V1Service] => {
    const o = lb();
    const n = lb();
    mut(o, n);
    return [o, n];
  };
  const cases: [string, [V1Service, V1Service], boolean][] = [
    [
      'SVC-48: If the service type is changed from LoadBalancer to ClusterIP',
      pair((_o, n) => {
        n.spec!.type = 'ClusterIP';
      }),
      true,
    ],
    [
      'SVC-49: If the Ports are different',
      pair((o, n) => {
        o.spec!.ports = [8000, 9000, 10000].map((port) => ({ port, protocol: 'TCP' }));
        n.spec!.ports = [8001, 9001, 10001].map((port) => ({ port, protocol: 'TCP' }));
      }),
      true,
    ],
    [
      'SVC-50: If external ip counts are different',
      pair((o, n) => {
        o.spec!.externalIPs = ['old.IP.1'];
        n.spec!.externalIPs = ['new.IP.1', 'new.IP.2'];
      }),
      true,
    ],
    [
      'SVC-51: If external ips are different',
      pair((o, n) => {
        o.spec!.externalIPs = ['old.IP.1', 'old.IP.2'];
        n.spec!.externalIPs = ['new.IP.1', 'new.IP.2'];
      }),
      true,
    ],
    [
      'SVC-52: If UID is different',
      pair((o, n) => {
        o.metadata!.uid = 'UID old';
        n.metadata!.uid = 'UID new';
      }),
      true,
    ],
    [
      'SVC-53: If ExternalTrafficPolicy is different',
      pair((_o, n) => {
        n.spec!.externalTrafficPolicy = 'Local';
      }),
      true,
    ],
    [
      'SVC-54: If HealthCheckNodePort is different',
      pair((_o, n) => {
        n.spec!.healthCheckNodePort = 30123;
      }),
      true,
    ],
    [
      'SVC-55: If TargetGroup is different 1',
      pair((o, n) => {
        o.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 20 }];
        n.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 21 }];
      }),
      true,
    ],
    [
      'SVC-56: If TargetGroup is different 2',
      pair((o, n) => {
        o.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22 }];
        n.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 'dns' }];
      }),
      true,
    ],
    [
      'SVC-57: If appProtocol is the same',
      pair((o, n) => {
        o.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22, appProtocol: 'http' }];
        n.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22, appProtocol: 'http' }];
      }),
      false,
    ],
    [
      'SVC-58: If service IPFamilies from single stack to dual stack',
      pair((o, n) => {
        o.spec!.ipFamilies = ['IPv4'];
        n.spec!.ipFamilies = ['IPv4', 'IPv6'];
      }),
      true,
    ],
    [
      'SVC-59: If service IPFamilies from dual stack to single stack',
      pair((o, n) => {
        o.spec!.ipFamilies = ['IPv4', 'IPv6'];
        n.spec!.ipFamilies = ['IPv4'];
      }),
      true,
    ],
    [
      'SVC-60: If service IPFamilies not change',
      pair((o, n) => {
        o.spec!.ipFamilies = ['IPv4'];
        n.spec!.ipFamilies = ['IPv4'];
      }),
      false,
    ],
    [
      'SVC-61: If appProtocol is set when previously unset',
      pair((o, n) => {
        o.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22 }];
        n.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22, appProtocol: 'http' }];
      }),
      true,
    ],
    [
      'SVC-62: If appProtocol is set to a different value',
      pair((o, n) => {
        o.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22, appProtocol: 'tcp' }];
        n.spec!.ports = [{ port: 80, protocol: 'TCP', targetPort: 22, appProtocol: 'http' }];
      }),
      true,
    ],
  ];
  for (const [name, [o, n], want] of cases) {
    it(name, () => {
      expect(needsUpdate(o, n)).toBe(want);
    });
  }

  it('nil and empty source ranges and annotations differ (strict deep equality, upstream quirk 10 in docs/upstream-quirks.md)', () => {
    const [o, n] = pair((_o, n) => {
      n.spec!.loadBalancerSourceRanges = [];
    });
    expect(needsUpdateReason(o, n)).toBe('loadBalancerSourceRanges');
    const [o2, n2] = pair((_o, n) => {
      n.metadata!.annotations = {};
    });
    expect(needsUpdateReason(o2, n2)).toBe('annotations');
  });

  it('ignores labels, ipFamilyPolicy, internalTrafficPolicy, allocateLoadBalancerNodePorts, status and finalizers', () => {
    const [o, n] = pair((_o, n) => {
      n.metadata!.labels = { a: 'b' };
      n.metadata!.finalizers = ['x'];
      n.spec!.ipFamilyPolicy = 'PreferDualStack';
      n.spec!.internalTrafficPolicy = 'Local';
      n.spec!.allocateLoadBalancerNodePorts = false;
      n.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
    });
    expect(needsUpdate(o, n)).toBe(false);
  });

  it('neither wanting a load balancer is never an update; a class set on both is not an update', () => {
    expect(needsUpdate(newService('a', 'ClusterIP'), newService('a', 'NodePort'))).toBe(false);
    const o = newService('a', 'LoadBalancer', { spec: { loadBalancerClass: 'x' } });
    const n = newService('a', 'LoadBalancer', {
      spec: { loadBalancerClass: 'x', loadBalancerIP: '1.1.1.1' },
    });
    expect(needsUpdate(o, n)).toBe(false);
    expect(needsUpdate(o, n, 'x')).toBe(true);
  });

  it('compares sessionAffinity, sessionAffinityConfig and loadBalancerIP', () => {
    const affinity = pair((_o, n) => {
      n.spec!.sessionAffinity = 'ClientIP';
    });
    expect(needsUpdateReason(...affinity)).toBe('sessionAffinity');
    const affinityConfig = pair((_o, n) => {
      n.spec!.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10 } };
    });
    expect(needsUpdateReason(...affinityConfig)).toBe('sessionAffinityConfig');
    const lbIP = pair((_o, n) => {
      n.spec!.loadBalancerIP = '1.2.3.4';
    });
    expect(needsUpdateReason(...lbIP)).toBe('loadBalancerIP');
  });
});

describe('ServiceCache (TestServiceCache)', () => {
  const cache = new ServiceCache();
  it('SVC-63: Add', () => {
    cache.getOrCreate('addTest').state = newService('addTest', 'LoadBalancer');
    expect(cache.size).toBe(1);
  });
  it('SVC-64: Del', () => {
    cache.delete('addTest');
    expect(cache.size).toBe(0);
  });
  it('SVC-65: Set and Get', () => {
    const svc = newService('addTest', 'LoadBalancer');
    cache.set('addTest', { state: svc });
    expect(cache.get('addTest')?.state).toBe(svc);
  });
  it('SVC-66: ListKeys', () => {
    cache.set('addTest1', { state: newService('addTest1', 'LoadBalancer') });
    expect(cache.listKeys().sort()).toEqual(['addTest', 'addTest1']);
  });
  it('SVC-67: GetbyKeys', () => {
    const got = cache.getByKey('addTest');
    expect(got.exists).toBe(true);
    expect(got.entry).toBeDefined();
    expect(cache.getByKey('missing').exists).toBe(false);
  });
  it('SVC-68: allServices', () => {
    expect(cache.allServices()).toHaveLength(2);
  });
});

describe('node predicates (Test_respectsPredicates)', () => {
  const all = (n: V1Node) => respectsPredicates(n, allNodePredicates);
  it('SVC-77: an empty node with no Ready condition is not respected', () => {
    expect(all({})).toBe(false);
  });
  it('SVC-78: providerID and Ready=True', () => {
    expect(all(makeNode())).toBe(true);
  });
  it('SVC-79: Ready=True without providerID', () => {
    expect(all(makeNode({ providerID: '' }))).toBe(true);
  });
  it('SVC-80: Ready=False', () => {
    expect(all(makeNode({ ready: 'False' }))).toBe(false);
  });
  it('SVC-81: providerID, Ready and an empty labels map', () => {
    expect(all(makeNode({ labels: {} }))).toBe(true);
  });
  it('SVC-82: exclusion label ""', () => {
    expect(all(makeNode({ labels: { [EXCLUDE]: '' } }))).toBe(false);
  });
  it('SVC-83: exclusion label "false" is included', () => {
    expect(all(makeNode({ labels: { [EXCLUDE]: 'false' } }))).toBe(true);
  });
  it('SVC-84: exclusion label "true"', () => {
    expect(all(makeNode({ labels: { [EXCLUDE]: 'true' } }))).toBe(false);
  });
  it('SVC-85: exclusion label "foo" (unparsable means excluded)', () => {
    expect(all(makeNode({ labels: { [EXCLUDE]: 'foo' } }))).toBe(false);
  });
  it('SVC-86: taint ToBeDeletedByClusterAutoscaler', () => {
    const node = makeNode({
      taints: [{ key: TO_BE_DELETED, value: String(Date.now()), effect: 'NoSchedule' }],
    });
    expect(all(node)).toBe(false);
  });
  it('upstream quirk 1 in docs/upstream-quirks.md: the stable node set ignores readiness and the uninitialized taint but drops deleting nodes', () => {
    const stable = (n: V1Node) => respectsPredicates(n, stableNodeSetPredicates);
    expect(stable(makeNode({ ready: 'False' }))).toBe(true);
    expect(
      stable(
        makeNode({
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' }],
        }),
      ),
    ).toBe(true);
    expect(stable(makeNode({ providerID: '' }))).toBe(true);
    expect(stable(makeNode({ deletionTimestamp: new Date() }))).toBe(false);
    expect(stable(makeNode({ labels: { [EXCLUDE]: 'f' } }))).toBe(true);
    expect(stable(makeNode({ labels: { [EXCLUDE]: 'yes' } }))).toBe(false);
  });
  it('a deletion timestamp read from the watch as a string counts; Go zero time does not', () => {
    const n = makeNode();
    (n.metadata as Record<string, unknown>).deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(nodeNotDeletedPredicate(n)).toBe(false);
    (n.metadata as Record<string, unknown>).deletionTimestamp = '0001-01-01T00:00:00Z';
    expect(nodeNotDeletedPredicate(n)).toBe(true);
  });
});

describe('listWithPredicates (TestListWithPredicate)', () => {
  const phases = ['Pending', 'Running', 'Pending', 'Running', 'Pending'];
  const nodes = phases.map((phase, i) => ({ metadata: { name: `node${i}` }, status: { phase } }) as V1Node);
  const { lister } = new MemoryInformer(nodes);
  const names = (ns: V1Node[]) => ns.map((n) => n.metadata!.name);
  it('SVC-87: ListWithPredicate filter Running node', () => {
    expect(names(listWithPredicates(lister, [(n) => n.status?.phase === 'Running']))).toEqual(['node1', 'node3']);
  });
  it('SVC-88: ListWithPredicate filter Pending node', () => {
    expect(names(listWithPredicates(lister, [(n) => n.status?.phase === 'Pending']))).toEqual([
      'node0',
      'node2',
      'node4',
    ]);
  });
  it('SVC-89: ListWithPredicate filter Terminated node', () => {
    expect(listWithPredicates(lister, [(n) => n.status?.phase === 'Terminated'])).toEqual([]);
  });
});

describe('shouldSyncUpdatedNode', () => {
  type Mut = (n: V1Node) => void;
  const node = (...muts: Mut[]) => {
    const n = makeNode();
    for (const m of muts) m(n);
    return n;
  };
  const excluded: Mut = (n) => {
    n.metadata!.labels = { ...n.metadata!.labels, [EXCLUDE]: '' };
  };
  const tainted: Mut = (n) => {
    n.spec!.taints = [...(n.spec!.taints ?? []), { key: TO_BE_DELETED, effect: 'NoSchedule' }];
  };
  const otherTaint: Mut = (n) => {
    n.spec!.taints = [...(n.spec!.taints ?? []), { key: 'other', effect: 'NoSchedule' }];
  };
  const otherLabel: Mut = (n) => {
    n.metadata!.labels = { ...n.metadata!.labels, other: 'x' };
  };
  const ready =
    (status: 'True' | 'False' | 'unset'): Mut =>
    (n) => {
      const rest = (n.status!.conditions ?? []).filter((c) => c.type !== 'Ready');
      n.status!.conditions = status === 'unset' ? rest : [...rest, { type: 'Ready', status }];
    };
  const cond =
    (type: string, status: string): Mut =>
    (n) => {
      n.status!.conditions = [...(n.status!.conditions ?? []), { type, status }];
    };
  const pid =
    (id: string): Mut =>
    (n) => {
      n.spec!.providerID = id;
    };
  const deleting: Mut = (n) => {
    n.metadata!.deletionTimestamp = new Date();
  };

  const individual: [string, Mut[], Mut[], boolean][] = [
    ['SVC-90: nothing changed', [], [], false],
    ['SVC-91: excluded F->T', [], [excluded], true],
    ['SVC-92: excluded changed T->F', [excluded], [], true],
    ['SVC-93: excluded changed T->T', [excluded], [excluded], false],
    ['SVC-94: other taint F->T', [], [otherTaint], false],
    ['SVC-95: other taint T->F', [otherTaint], [], false],
    ['SVC-96: other label changed F->T', [], [otherLabel], false],
    ['SVC-97: other label changed T->F', [otherLabel], [], false],
    ['SVC-98: readiness changed F->F', [ready('False')], [ready('False')], false],
    ['SVC-99: readiness changed F->unset', [ready('False')], [ready('unset')], false],
    ['SVC-100: readiness changed unset->F', [ready('unset')], [ready('False')], false],
    ['SVC-101: readiness changed unset->unset', [ready('unset')], [ready('unset')], false],
    [
      'SVC-102: ready F, other condition changed F->T',
      [ready('False'), cond('DiskPressure', 'False')],
      [ready('False'), cond('DiskPressure', 'True')],
      false,
    ],
    [
      'SVC-103: ready F, other condition changed T->F',
      [ready('False'), cond('DiskPressure', 'True')],
      [ready('False'), cond('DiskPressure', 'False')],
      false,
    ],
    ['SVC-104: ready T, other condition changed F->T', [cond('Other', 'False')], [cond('Other', 'True')], false],
    ['SVC-105: ready T, other condition changed T->F', [cond('Other', 'True')], [cond('Other', 'False')], false],
    ['SVC-106: deletionTimestamp F -> T', [], [deleting], false],
    ['SVC-107: providerID set F -> T', [pid('')], [pid('providerID')], true],
    ['SVC-108: providerID set F -> T (duplicate case)', [pid('')], [pid('providerID')], true],
    ['SVC-109: providerID set T-> F', [pid('providerID')], [pid('')], true],
    ['SVC-110: providerID change', [pid('providerID')], [pid('providerID-2')], true],
  ];
  const compounded: [string, Mut[], Mut[], boolean][] = [
    ['SVC-111: tainted T, excluded F->T', [tainted], [tainted, excluded], true],
    ['SVC-112: tainted T, excluded T->F', [tainted, excluded], [tainted], true],
    ['SVC-113: tainted T, providerID set F->T', [tainted, pid('')], [tainted], true],
    ['SVC-114: tainted T, providerID set T->F', [tainted], [tainted, pid('')], true],
    ['SVC-115: tainted T, providerID change', [tainted], [tainted, pid('providerID-2')], true],
    ['SVC-116: tainted T, ready F->T', [tainted, ready('False')], [tainted], false],
    ['SVC-117: tainted T, ready T->F', [tainted], [tainted, ready('False')], false],
    ['SVC-118: excluded T, tainted F->T', [excluded], [excluded, tainted], false],
    ['SVC-119: excluded T, tainted T->F', [excluded, tainted], [excluded], false],
    ['SVC-120: excluded T, ready F->T', [excluded, ready('False')], [excluded], false],
    ['SVC-121: excluded T, ready T->F', [excluded], [excluded, ready('False')], false],
    ['SVC-122: excluded T, providerID set F->T', [excluded, pid('')], [excluded], true],
    ['SVC-123: excluded T, providerID set T->F', [excluded], [excluded, pid('')], true],
    ['SVC-124: excluded T, providerID change', [excluded], [excluded, pid('providerID-2')], true],
    ['SVC-125: ready F, tainted F->T', [ready('False')], [ready('False'), tainted], false],
    ['SVC-126: ready F, tainted T->F', [ready('False'), tainted], [ready('False')], false],
    ['SVC-127: ready F, excluded F->T', [ready('False')], [ready('False'), excluded], true],
    ['SVC-128: ready F, excluded T->F', [ready('False'), excluded], [ready('False')], true],
    ['SVC-129: ready F, providerID set F->T', [ready('False'), pid('')], [ready('False')], true],
    ['SVC-130: ready F, providerID set T->F', [ready('False')], [ready('False'), pid('')], true],
    ['SVC-131: ready F, providerID change', [ready('False')], [ready('False'), pid('providerID-2')], true],
    ['SVC-132: providerID unset, excluded F->T', [pid('')], [pid(''), excluded], true],
    ['SVC-133: providerID unset, excluded T->F', [pid(''), excluded], [pid('')], true],
    ['SVC-134: providerID unset, ready T->F', [pid('')], [pid(''), ready('False')], false],
    ['SVC-135: providerID unset, ready F->T', [pid(''), ready('False')], [pid('')], false],
    ['SVC-136: providerID unset, tainted T->F', [pid(''), tainted], [pid('')], false],
    ['SVC-137: providerID unset, tainted F->T', [pid('')], [pid(''), tainted], false],
  ];
  for (const [name, oldMuts, newMuts, want] of [...individual, ...compounded]) {
    it(name, () => {
      expect(shouldSyncUpdatedNode(node(...oldMuts), node(...newMuts))).toBe(want);
    });
  }
});

describe('node set comparison and logging', () => {
  const n = (name: string, providerID = 'providerID') => makeNode({ name, providerID });
  it('nodesSufficientlyEqual compares names and providerIDs, not order', () => {
    expect(nodesSufficientlyEqual([n('a'), n('b')], [n('b'), n('a')])).toBe(true);
    expect(nodesSufficientlyEqual([n('a'), n('b')], [n('a'), n('b', 'cumulus/2')])).toBe(false);
    expect(nodesSufficientlyEqual([n('a'), n('b')], [n('a'), n('c')])).toBe(false);
    expect(nodesSufficientlyEqual([n('a')], [n('a'), n('b')])).toBe(false);
    expect(nodesSufficientlyEqual([], [])).toBe(true);
  });
  it('loggableNodeNames sorts the first 20 names and counts the rest', () => {
    const nodes = Array.from({ length: 23 }, (_, i) => n(`node-${String(22 - i).padStart(2, '0')}`));
    const names = loggableNodeNames(nodes);
    expect(names).toHaveLength(21);
    expect(names[0]).toBe('node-03');
    expect(names[19]).toBe('node-22');
    expect(names[20]).toBe('<3 more>');
    expect(formatGoStringSlice(['a', 'b'])).toBe('[a b]');
    expect(formatGoStringSlice([])).toBe('[]');
  });
});

describe('errorText (Go err.Error() of API and cloud errors)', () => {
  it('reads the Status message of a client-node ApiException, as client-go StatusError', () => {
    const body = JSON.stringify({ kind: 'Status', status: 'Failure', message: 'services "x" not found', code: 404 });
    expect(errorText(new ApiException(404, 'Unknown API Status Code!', body, {}))).toBe('services "x" not found');
    expect(errorText(new ApiException(404, 'x', { kind: 'Status', message: 'as object' }, {}))).toBe('as object');
  });
  it('keeps the message of other errors, including bodies that are not a Status, and never reads causes', () => {
    expect(errorText(new ApiException(502, 'Bad Gateway', '<html>', {}))).toMatch(/^HTTP-Code: 502/);
    const cloud = Object.assign(new Error('quota exceeded (LB)'), { code: 403, body: '{"message":"quota"}' });
    expect(errorText(cloud)).toBe('quota exceeded (LB)');
    const inner = new ApiException(409, 'x', JSON.stringify({ kind: 'Status', message: 'inner' }), {});
    expect(errorText(new Error('outer', { cause: inner }))).toBe('outer');
    expect(errorText('plain')).toBe('plain');
  });
});
