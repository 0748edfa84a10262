import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE } from '@ccm-kit/cloud-provider';
import {
  chooseZonesForVolume,
  chooseZonesForVolumeIncludingZone,
  labelZonesToList,
  labelZonesToSet,
  selectZoneForVolume,
  selectZonesForVolume,
  zonesFromAllowedTopologies,
  zonesSetToLabelValue,
  zonesToSet,
} from '@ccm-kit/cloud-provider/volume';
import { fnv32, pvcNameHashAndIndexOffset } from '@ccm-kit/cloud-provider/internal';
import type { V1Node, V1TopologySelectorTerm } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

const set = (...z: string[]) => new Set(z);

describe('zone parsing (upstream TestZonesToSet and label helpers)', () => {
  it.each(['', ',', 'us-east-1a, , us-east-1d', ', us-west-1b', 'us-west-2b,'])('zonesToSet rejects %j', (v) => {
    expect(() => zonesToSet(v)).toThrow(
      `error parsing zones ${v}, must be strings separated by commas: "," separated list (${JSON.stringify(v)}) must not contain an empty string`,
    );
  });

  it('zonesToSet accepts and trims', () => {
    expect(zonesToSet('us-east-1a')).toEqual(set('us-east-1a'));
    expect(zonesToSet('us-east-1a, us-west-2a')).toEqual(set('us-east-1a', 'us-west-2a'));
  });

  it('label zones split on "__", keep order in the list form, and join back', () => {
    expect(labelZonesToSet('a__b__a')).toEqual(set('a', 'b'));
    expect(labelZonesToList('c__ a__b')).toEqual(['c', 'a', 'b']);
    expect(() => labelZonesToSet('a____b')).toThrow('"__" separated list ("a____b") must not contain an empty string');
    expect(() => labelZonesToList('')).toThrow('must not contain an empty string');
    expect(zonesSetToLabelValue(set('b', 'a'))).toBe('a__b');
    expect(labelZonesToSet(zonesSetToLabelValue(set('x', 'y', 'z')))).toEqual(set('x', 'y', 'z'));
  });

  it('zonesFromAllowedTopologies accepts only the GA and beta zone keys', () => {
    const terms: V1TopologySelectorTerm[] = [
      { matchLabelExpressions: [{ key: LABEL_TOPOLOGY_ZONE, values: ['a', 'b'] }] },
      { matchLabelExpressions: [{ key: LABEL_FAILURE_DOMAIN_BETA_ZONE, values: ['c'] }] },
    ];
    expect(zonesFromAllowedTopologies(terms)).toEqual(set('a', 'b', 'c'));
    expect(zonesFromAllowedTopologies(undefined)).toEqual(set());
    expect(() =>
      zonesFromAllowedTopologies([{ matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['x'] }] }]),
    ).toThrow('unsupported key found in matchLabelExpressions: kubernetes.io/hostname');
  });
});

describe('chooseZonesForVolume (upstream TestChooseZonesForVolume)', () => {
  it('FNV-32 (not 1a) fixtures', () => {
    expect(fnv32('henley')).toBe(1180403676);
    expect(fnv32('henley-')).toBe(2652299129);
    expect(fnv32('henley-a')).toBe(1459735322);
    expect(fnv32('')).toBe(2166136261);
  });

  it('StatefulSet-style names hash only the claim segment and use the ordinal as offset', () => {
    expect(pvcNameHashAndIndexOffset('henley')).toEqual({ hash: 1180403676, index: 0 });
    expect(pvcNameHashAndIndexOffset('henley-1')).toEqual({ hash: 1180403676, index: 1 });
    expect(pvcNameHashAndIndexOffset('medium-henley-1')).toEqual({ hash: 1180403676, index: 1 });
    expect(pvcNameHashAndIndexOffset('henley-')).toEqual({ hash: 2652299129, index: 0 });
    expect(pvcNameHashAndIndexOffset('henley-a')).toEqual({ hash: 1459735322, index: 0 });
    expect(pvcNameHashAndIndexOffset('henley-4294967296')).toEqual({
      hash: fnv32('henley-4294967296'),
      index: 0,
    });
  });

  it('rotation cases over {a,b,c}', () => {
    const zones = set('c', 'a', 'b');
    expect(chooseZonesForVolume(zones, 'henley', 1)).toEqual(set('a'));
    expect(chooseZonesForVolume(zones, 'henley', 2)).toEqual(set('a', 'b'));
    expect(chooseZonesForVolume(zones, 'henley-1', 2)).toEqual(set('c', 'a'));
    expect(chooseZonesForVolume(zones, 'henley-2', 2)).toEqual(set('b', 'c'));
    expect(chooseZonesForVolume(zones, 'medium-henley-1', 2)).toEqual(set('c', 'a'));
  });

  it('is deterministic and spreads StatefulSet replicas round-robin', () => {
    const zones = set('a', 'b', 'c');
    const picks = [0, 1, 2, 3].map((i) => [...chooseZonesForVolume(zones, `www-web-${i}`, 1)][0]);
    expect(new Set(picks.slice(0, 3)).size).toBe(3);
    expect(picks[3]).toBe(picks[0]);
    expect(chooseZonesForVolume(zones, 'www-web-1', 1)).toEqual(chooseZonesForVolume(zones, 'www-web-1', 1));
  });

  it('wraps uint32 arithmetic as Go does', () => {
    // hash(henley) + 4000000000 overflows uint32: wrapped it is ≡ 0 (mod 3) -> a; unwrapped it would give b.
    expect(chooseZonesForVolume(set('a', 'b', 'c'), 'henley-4000000000', 1)).toEqual(set('a'));
    // index·n wraps to 4294967294 and start+n wraps to 0, so Go's loop never runs.
    expect(chooseZonesForVolume(set('a', 'b', 'c'), 'henley-4294967295', 2)).toEqual(set());
  });

  it('an empty zone set gives an empty set; an empty name still picks zones', () => {
    expect(chooseZonesForVolume(set(), 'henley', 1)).toEqual(set());
    expect(chooseZonesForVolume([], 'henley', 3)).toEqual(set());
    expect(chooseZonesForVolume(set('a', 'b'), '', 1).size).toBe(1);
  });
});

describe('chooseZonesForVolumeIncludingZone (upstream TestChooseZonesForVolumeIncludingZone)', () => {
  it.each<[string, Set<string>, string, number, string]>([
    ['Too_Few_Zones', set('a', 'b'), '', 3, 'not enough zones found to provision a volume with 3 replicas'],
    ['Zero_Replica_Count', set('a', 'b'), '', 0, 'invalid number of replicas passed'],
    ['ZoneToInclude_Not_In_Zones_Single_replica', set('a', 'b'), 'c', 1, 'zone to be included: c needs to be member'],
    ['ZoneToInclude_Not_In_Zones_Multi_replica', set('a', 'b'), 'c', 2, 'zone to be included: c needs to be member'],
    ['ZoneToInclude_Not_In_Zones_Superset', set('a', 'b', 'd'), 'c', 2, 'zone to be included: c needs to be member'],
  ])('%s is rejected', (_name, zones, include, n, msg) => {
    expect(() => chooseZonesForVolumeIncludingZone(zones, 'pvc', include, n)).toThrow(msg);
  });

  it('returns all zones when there are exactly n, always includes the zone, never mutates the input', () => {
    const zones = set('a', 'b', 'c', 'd');
    expect(chooseZonesForVolumeIncludingZone(set('a', 'b'), 'pvc', 'a', 2)).toEqual(set('a', 'b'));
    for (const name of ['p-0', 'p-1', 'p-2', 'p-3', 'henley']) {
      const chosen = chooseZonesForVolumeIncludingZone(zones, name, 'c', 2);
      expect(chosen.size).toBe(2);
      expect(chosen.has('c')).toBe(true);
      for (const z of chosen) expect(zones.has(z)).toBe(true);
    }
    expect(zones).toEqual(set('a', 'b', 'c', 'd'));
    const any = chooseZonesForVolumeIncludingZone(zones, 'pvc', '', 3);
    expect(any.size).toBe(3);
  });
});

const nodeIn = (labels: Record<string, string>): V1Node => ({ metadata: { name: 'n', labels } });
const topo = (...zones: string[]): V1TopologySelectorTerm[] => [
  { matchLabelExpressions: [{ key: LABEL_TOPOLOGY_ZONE, values: zones }] },
];

describe('selectZonesForVolume / selectZoneForVolume (upstream TestSelectZone(s)ForVolume)', () => {
  it.each<[string, Parameters<typeof selectZonesForVolume>[0], string]>([
    [
      'Nil_Node_with_Zone_Zones_parameters_present',
      { zone: 'a', zones: set('a'), pvcName: 'p', replicas: 1 },
      'both zone and zones StorageClass parameters must not be used at the same time',
    ],
    [
      'Node_with_no_Zone_labels',
      { node: nodeIn({}), pvcName: 'p', replicas: 1 },
      `${LABEL_TOPOLOGY_ZONE} Label for node missing`,
    ],
    [
      'Node_with_Zone_labels_and_Zone_parameter_present',
      { node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'a' }), zone: 'a', pvcName: 'p', replicas: 1 },
      'zone[s] cannot be specified in StorageClass if VolumeBindingMode is set to WaitForFirstConsumer',
    ],
    [
      'Node_with_Zone_labels_and_Zones_parameter_present',
      { node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'a' }), zones: set('a'), pvcName: 'p', replicas: 2 },
      'zone[s] cannot be specified in StorageClass if VolumeBindingMode is set to WaitForFirstConsumer',
    ],
    [
      'AllowedTopologies_without_zone_keys_yields_no_zones',
      { allowedTopologies: [{ matchLabelExpressions: [] }], pvcName: 'p', replicas: 1 },
      'no matchLabelExpressions with topology.kubernetes.io/zone key found in allowedTopologies',
    ],
    [
      'AllowedTopologies_and_Zone_parameter_present',
      { allowedTopologies: topo('a'), zone: 'a', pvcName: 'p', replicas: 1 },
      'zone[s] cannot be specified in StorageClass if allowedTopologies specified',
    ],
    [
      'AllowedTopologies_and_Replicas_mismatched',
      { allowedTopologies: topo('a'), pvcName: 'p', replicas: 2 },
      'cannot process zones in allowedTopologies: not enough zones found',
    ],
    [
      'Zone_parameter_with_multiple_replicas',
      { zone: 'a', pvcName: 'p', replicas: 2 },
      'zone cannot be specified if desired number of replicas for pv is greather than 1',
    ],
    [
      'Zones_parameter_with_too_few_zones',
      { zones: set('a'), pvcName: 'p', replicas: 2 },
      'not enough zones found in zones parameter to provision a volume with 2 replicas. Found 1 zones, need 2 zones',
    ],
    [
      'Node_zone_not_in_AllowedTopologies',
      {
        node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'x' }),
        allowedTopologies: topo('a', 'b'),
        pvcName: 'p',
        replicas: 2,
      },
      'cannot process zones in allowedTopologies: zone to be included: x',
    ],
    ['Nothing_to_choose_from', { pvcName: 'p', replicas: 1 }, 'cannot determine zones to provision volume in'],
  ])('%s is rejected', (_name, input, msg) => {
    expect(() => selectZonesForVolume(input)).toThrow(msg);
  });

  it('Node_with_Zone_labels: the GA label wins, the beta label is the fallback, 1 replica returns it', () => {
    expect(
      selectZonesForVolume({
        node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'ga', [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'beta' }),
        zonesWithNodes: set('x'),
        pvcName: 'p',
        replicas: 1,
      }),
    ).toEqual(set('ga'));
    expect(selectZoneForVolume({ node: nodeIn({ [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'beta' }), pvcName: 'p' })).toBe(
      'beta',
    );
  });

  it('Zone_parameter / Zones_parameter', () => {
    expect(selectZoneForVolume({ zone: 'z9', pvcName: 'p' })).toBe('z9');
    expect(selectZonesForVolume({ zones: set('a', 'b', 'c'), pvcName: 'henley', replicas: 2 })).toEqual(set('a', 'b'));
  });

  it('AllowedTopologies_Superset / _Match, with and without a node', () => {
    const superset = selectZonesForVolume({
      allowedTopologies: topo('a', 'b', 'c', 'd'),
      pvcName: 'p-1',
      replicas: 2,
    });
    expect(superset.size).toBe(2);
    for (const z of superset) expect(['a', 'b', 'c', 'd']).toContain(z);
    expect(selectZonesForVolume({ allowedTopologies: topo('a', 'b'), pvcName: 'p', replicas: 2 })).toEqual(
      set('a', 'b'),
    );
    const withNode = selectZonesForVolume({
      node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'c' }),
      allowedTopologies: topo('a', 'b', 'c', 'd'),
      pvcName: 'p',
      replicas: 3,
    });
    expect(withNode.size).toBe(3);
    expect(withNode.has('c')).toBe(true);
  });

  it('ZonesWithNodes_Superset / _Match, including the node zone', () => {
    const chosen = selectZonesForVolume({
      node: nodeIn({ [LABEL_TOPOLOGY_ZONE]: 'b' }),
      zonesWithNodes: set('a', 'b', 'c', 'd'),
      pvcName: 'p',
      replicas: 2,
    });
    expect(chosen.size).toBe(2);
    expect(chosen.has('b')).toBe(true);
    expect(selectZonesForVolume({ zonesWithNodes: set('a', 'b'), pvcName: 'p', replicas: 2 })).toEqual(set('a', 'b'));
    expect(selectZoneForVolume({ zonesWithNodes: set('only'), pvcName: 'p' })).toBe('only');
  });
});
