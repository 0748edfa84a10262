/**
 * Zone selection for volumes.
 * Follows upstream `k8s.io/cloud-provider/volume/helpers/zones.go` (upstream `k8s.io/cloud-provider volume/helpers/*_test.go`). Zone sets are
 * `Set<string>`s; inputs are never modified (upstream deletes from the caller's set in one place).
 */
import type { V1Node, V1TopologySelectorTerm } from '@kubernetes/client-node';
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_MULTI_ZONE_DELIMITER, LABEL_TOPOLOGY_ZONE } from '../well-known.js';

function splitZones(value: string, delimiter: string): string[] {
  const out: string[] = [];
  for (const item of value.split(delimiter)) {
    const zone = item.trim();
    if (zone === '') {
      throw new Error(
        `${JSON.stringify(delimiter)} separated list (${JSON.stringify(value)}) must not contain an empty string`,
      );
    }
    out.push(zone);
  }
  return out;
}

/**
 * Parses a comma-separated zone list (the StorageClass `zones` parameter); items are trimmed.
 * @throws Error `error parsing zones <value>, must be strings separated by commas: "," separated list ("<value>") must not contain an empty string`
 */
export function zonesToSet(value: string): Set<string> {
  try {
    return new Set(splitZones(value, ','));
  } catch (err) {
    throw new Error(`error parsing zones ${value}, must be strings separated by commas: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Parses a zone label value holding several zones separated by `__`; items are trimmed.
 * @throws Error `"__" separated list ("<value>") must not contain an empty string`
 */
export function labelZonesToSet(value: string): Set<string> {
  return new Set(splitZones(value, LABEL_MULTI_ZONE_DELIMITER));
}

/** Like {@link labelZonesToSet} but keeps order (and duplicates). */
export function labelZonesToList(value: string): string[] {
  return splitZones(value, LABEL_MULTI_ZONE_DELIMITER);
}

/** Joins zones with `__` for a label value (sorted here; upstream's order is unspecified). */
export function zonesSetToLabelValue(zones: Iterable<string>): string {
  return [...zones].sort().join(LABEL_MULTI_ZONE_DELIMITER);
}

/**
 * The zones named by a StorageClass's `allowedTopologies`; only the keys `topology.kubernetes.io/zone` and
 * `failure-domain.beta.kubernetes.io/zone` are accepted.
 * @throws Error `unsupported key found in matchLabelExpressions: <key>`
 */
export function zonesFromAllowedTopologies(terms: readonly V1TopologySelectorTerm[] | undefined): Set<string> {
  const zones = new Set<string>();
  for (const term of terms ?? []) {
    for (const expr of term.matchLabelExpressions ?? []) {
      if (expr.key !== LABEL_TOPOLOGY_ZONE && expr.key !== LABEL_FAILURE_DOMAIN_BETA_ZONE) {
        throw new Error(`unsupported key found in matchLabelExpressions: ${expr.key}`);
      }
      for (const v of expr.values ?? []) zones.add(v);
    }
  }
  return zones;
}

/** FNV-1 32-bit hash (Go `hash/fnv.New32`, not FNV-1a) of the UTF-8 bytes of `text`. */
export function fnv32(text: string): number {
  let hash = 2166136261;
  for (const byte of Buffer.from(text, 'utf-8')) {
    hash = Math.imul(hash, 16777619) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}

const MAX_UINT32 = 2 ** 32 - 1;

/**
 * The hash and index offset for a PVC name (upstream `getPVCNameHashAndIndexOffset`): a name ending in
 * `-<uint32>` (a StatefulSet claim such as `www-web-1`) uses that number as the offset and hashes only the
 * segment before it (after its own last `-`). An empty name gets a random hash.
 */
export function pvcNameHashAndIndexOffset(pvcName: string): { hash: number; index: number } {
  if (pvcName === '') return { hash: Math.floor(Math.random() * 2 ** 32) >>> 0, index: 0 };
  let hashString = pvcName;
  let index = 0;
  const lastDash = pvcName.lastIndexOf('-');
  if (lastDash !== -1) {
    const idText = pvcName.slice(lastDash + 1);
    if (/^[0-9]+$/.test(idText) && Number(idText) <= MAX_UINT32) {
      index = Number(idText);
      hashString = pvcName.slice(0, lastDash);
      const prevDash = hashString.lastIndexOf('-');
      if (prevDash !== -1) hashString = hashString.slice(prevDash + 1);
    }
  }
  return { hash: fnv32(hashString), index };
}

/**
 * Deterministically picks `numZones` zones for a volume (upstream `ChooseZonesForVolume`): sorts the zones
 * and takes `sorted[(hash + index·n + i) mod len]` for `i` in `0..n-1`, with uint32 wrap-around as in Go.
 * An empty zone set gives an empty set.
 */
export function chooseZonesForVolume(zones: Iterable<string>, pvcName: string, numZones: number): Set<string> {
  const sorted = [...new Set(zones)].sort();
  const chosen = new Set<string>();
  if (sorted.length === 0) return chosen;
  const { hash, index } = pvcNameHashAndIndexOffset(pvcName);
  const n = numZones >>> 0;
  const start = Math.imul(index, n) >>> 0;
  const end = (start + n) >>> 0;
  for (let i = start; i < end; i = (i + 1) >>> 0) {
    chosen.add(sorted[((hash + i) >>> 0) % sorted.length] as string);
  }
  return chosen;
}

/**
 * Picks `numReplicas` zones from `zones` that always include `zoneToInclude` (when non-empty)
 * (upstream `chooseZonesForVolumeIncludingZone`).
 * @throws Error `invalid number of replicas passed` for 0 replicas.
 * @throws Error `not enough zones found to provision a volume with <n> replicas. …` when too few zones.
 * @throws Error `zone to be included: <zone> needs to be member of set: <zones>` when it is not in `zones`.
 */
export function chooseZonesForVolumeIncludingZone(
  zones: ReadonlySet<string>,
  pvcName: string,
  zoneToInclude: string,
  numReplicas: number,
): Set<string> {
  if (numReplicas === 0) throw new Error('invalid number of replicas passed');
  if (zones.size < numReplicas) {
    throw new Error(
      `not enough zones found to provision a volume with ${numReplicas} replicas. Need at least ${numReplicas} distinct zones for a volume with ${numReplicas} replicas`,
    );
  }
  if (zoneToInclude !== '' && !zones.has(zoneToInclude)) {
    throw new Error(`zone to be included: ${zoneToInclude} needs to be member of set: ${[...zones].sort().join(',')}`);
  }
  if (zones.size === numReplicas) return new Set(zones);
  const rest = new Set(zones);
  let n = numReplicas;
  if (zoneToInclude !== '') {
    rest.delete(zoneToInclude);
    n -= 1;
  }
  const chosen = chooseZonesForVolume(rest, pvcName, n);
  if (zoneToInclude !== '') chosen.add(zoneToInclude);
  return chosen;
}

/** Inputs of {@link selectZonesForVolume}. A parameter is "present" when it is not `undefined`. */
export interface SelectZonesForVolumeInput {
  /** The StorageClass `zone` parameter, when present. */
  zone?: string;
  /** The StorageClass `zones` parameter (parsed), when present. */
  zones?: ReadonlySet<string>;
  /** Zones that have nodes. */
  zonesWithNodes?: ReadonlySet<string>;
  /** The selected node (WaitForFirstConsumer), when there is one. */
  node?: Pick<V1Node, 'metadata'>;
  /** The StorageClass `allowedTopologies`. */
  allowedTopologies?: readonly V1TopologySelectorTerm[];
  /** The PVC name (drives the deterministic choice). */
  pvcName: string;
  /** Number of replicas (zones) wanted. */
  replicas: number;
}

/**
 * Chooses the zones to provision a volume in (upstream `SelectZonesForVolume`), applying in order:
 * 1. `zone` and `zones` both present: error;
 * 2. with a node: `zone`/`zones` present is an error; the node's zone comes from its GA zone label, else
 *    its beta label, else error; with 1 replica that zone is the answer;
 * 3. `allowedTopologies` non-empty but naming no zones: error;
 * 4. zones from `allowedTopologies`: `zone`/`zones` present is an error; otherwise choose among them,
 *    including the node's zone;
 * 5. `zone` present: error for more than 1 replica, else that zone;
 * 6. `zones` present: error with fewer zones than replicas, else {@link chooseZonesForVolume};
 * 7. zones with nodes: choose among them, including the node's zone;
 * 8. otherwise error `cannot determine zones to provision volume in`.
 * @throws Error as listed above.
 */
export function selectZonesForVolume(input: SelectZonesForVolumeInput): Set<string> {
  const { zone, zones, node, pvcName, replicas } = input;
  const zonePresent = zone !== undefined;
  const zonesPresent = zones !== undefined;
  if (zonePresent && zonesPresent) {
    throw new Error('both zone and zones StorageClass parameters must not be used at the same time');
  }
  let zoneFromNode = '';
  if (node !== undefined) {
    if (zonePresent || zonesPresent) {
      throw new Error(
        'zone[s] cannot be specified in StorageClass if VolumeBindingMode is set to WaitForFirstConsumer. Please specify allowedTopologies in StorageClass for constraining zones',
      );
    }
    const labels = node.metadata?.labels ?? {};
    const fromNode = labels[LABEL_TOPOLOGY_ZONE] ?? labels[LABEL_FAILURE_DOMAIN_BETA_ZONE];
    if (fromNode === undefined) throw new Error(`${LABEL_TOPOLOGY_ZONE} Label for node missing`);
    zoneFromNode = fromNode;
    if (replicas === 1) return new Set([zoneFromNode]);
  }
  const allowedTopologies = input.allowedTopologies ?? [];
  const allowedZones = zonesFromAllowedTopologies(allowedTopologies);
  if (allowedTopologies.length > 0 && allowedZones.size === 0) {
    throw new Error(
      `no matchLabelExpressions with ${LABEL_TOPOLOGY_ZONE} key found in allowedTopologies. Please specify matchLabelExpressions with ${LABEL_TOPOLOGY_ZONE} key`,
    );
  }
  if (allowedZones.size > 0) {
    if (zonePresent || zonesPresent) {
      throw new Error('zone[s] cannot be specified in StorageClass if allowedTopologies specified');
    }
    try {
      return chooseZonesForVolumeIncludingZone(allowedZones, pvcName, zoneFromNode, replicas);
    } catch (err) {
      throw new Error(`cannot process zones in allowedTopologies: ${(err as Error).message}`, { cause: err });
    }
  }
  if (zonePresent) {
    if (replicas > 1) {
      throw new Error(
        'zone cannot be specified if desired number of replicas for pv is greather than 1. Please specify zones or allowedTopologies to specify desired zones',
      );
    }
    return new Set([zone]);
  }
  if (zonesPresent) {
    if (zones.size < replicas) {
      throw new Error(
        `not enough zones found in zones parameter to provision a volume with ${replicas} replicas. Found ${zones.size} zones, need ${replicas} zones`,
      );
    }
    return chooseZonesForVolume(zones, pvcName, replicas);
  }
  const zonesWithNodes = input.zonesWithNodes ?? new Set<string>();
  if (zonesWithNodes.size > 0) {
    try {
      return chooseZonesForVolumeIncludingZone(zonesWithNodes, pvcName, zoneFromNode, replicas);
    } catch (err) {
      throw new Error(`cannot process zones where nodes exist in the cluster: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  throw new Error('cannot determine zones to provision volume in');
}

/**
 * The single-replica form of {@link selectZonesForVolume} (upstream `SelectZoneForVolume`).
 * @throws Error as {@link selectZonesForVolume}.
 */
export function selectZoneForVolume(input: Omit<SelectZonesForVolumeInput, 'replicas'>): string {
  const zones = selectZonesForVolume({ ...input, replicas: 1 });
  const [zone] = zones;
  if (zone === undefined) throw new Error('could not determine a zone to provision volume in');
  return zone;
}
