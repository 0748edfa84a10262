/**
 * The inventory: the machines of the local cloud, read from a YAML (or JSON) file.
 *
 * ```yaml
 * machines:
 *   - name: node-a                  # the Node name (required, unique)
 *     providerID: local://node-a    # optional; default local://<name>; must start with local://
 *     addresses:                    # InternalIP / ExternalIP (IPv4 or IPv6), Hostname, InternalDNS, ExternalDNS
 *       - { type: InternalIP, address: 10.0.0.11 }
 *       - { type: InternalIP, address: "fd00::11" }
 *       - { type: Hostname, address: node-a }
 *     zone: zone-1
 *     region: region-1
 *     instanceType: small
 *     additionalLabels: { example.com/rack: r1 }
 *     state: running                # running | stopped | absent (default running)
 * ```
 */
import type { V1NodeAddress } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { parseIP } from './ip.js';

/** The providerID prefix of this cloud. */
export const PROVIDER_ID_PREFIX = 'local://';

/** A machine's power state: `absent` machines do not exist (their Nodes get deleted). */
export type MachineState = 'running' | 'stopped' | 'absent';

/** One machine of the inventory. */
export interface Machine {
  readonly name: string;
  /** `local://<id>`. */
  readonly providerID: string;
  readonly addresses: readonly V1NodeAddress[];
  readonly zone?: string;
  readonly region?: string;
  readonly instanceType?: string;
  readonly additionalLabels: Readonly<Record<string, string>>;
  readonly state: MachineState;
}

/** A parsed inventory with its lookup tables. */
export interface Inventory {
  readonly machines: readonly Machine[];
  readonly byName: ReadonlyMap<string, Machine>;
  readonly byProviderID: ReadonlyMap<string, Machine>;
}

/** The inventory file is invalid; {@link InventoryError.problems} lists every problem found. */
export class InventoryError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`local: invalid inventory:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InventoryError';
    this.problems = problems;
  }
}

const MACHINE_FIELDS = new Set([
  'name',
  'providerID',
  'addresses',
  'zone',
  'region',
  'instanceType',
  'additionalLabels',
  'state',
]);
const IP_TYPES = new Set(['InternalIP', 'ExternalIP']);
const NAME_TYPES = new Set(['Hostname', 'InternalDNS', 'ExternalDNS']);
const STATES = new Set<MachineState>(['running', 'stopped', 'absent']);
const NODE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function optionalString(raw: Record<string, unknown>, field: string, at: string, problems: string[]) {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    problems.push(`${at}.${field}: must be a string`);
    return undefined;
  }
  return v;
}

function parseAddresses(value: unknown, at: string, problems: string[]): V1NodeAddress[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`${at}.addresses: must be a list of { type, address }`);
    return [];
  }
  const out: V1NodeAddress[] = [];
  value.forEach((a, j) => {
    const where = `${at}.addresses[${j}]`;
    if (!isRecord(a) || typeof a.type !== 'string' || typeof a.address !== 'string' || a.address === '') {
      problems.push(`${where}: must be { type, address } with non-empty strings`);
      return;
    }
    if (IP_TYPES.has(a.type)) {
      if (!parseIP(a.address)) problems.push(`${where}.address: "${a.address}" is not an IP address`);
    } else if (!NAME_TYPES.has(a.type)) {
      problems.push(`${where}.type: must be InternalIP, ExternalIP, Hostname, InternalDNS or ExternalDNS`);
      return;
    }
    out.push({ type: a.type, address: a.address });
  });
  return out;
}

function parseMachine(raw: unknown, at: string, problems: string[]): Machine | undefined {
  if (!isRecord(raw)) {
    problems.push(`${at}: must be a mapping with at least a name`);
    return undefined;
  }
  for (const k of Object.keys(raw)) if (!MACHINE_FIELDS.has(k)) problems.push(`${at}.${k}: unknown field`);
  const before = problems.length;
  const name = raw.name;
  if (typeof name !== 'string' || !NODE_NAME.test(name)) {
    problems.push(`${at}.name: must be a Node name (lower-case DNS subdomain), got ${JSON.stringify(name)}`);
    return undefined;
  }
  let providerID = `${PROVIDER_ID_PREFIX}${name}`;
  if (raw.providerID !== undefined) {
    if (
      typeof raw.providerID !== 'string' ||
      !raw.providerID.startsWith(PROVIDER_ID_PREFIX) ||
      raw.providerID.length === PROVIDER_ID_PREFIX.length
    ) {
      problems.push(`${at}.providerID: must be "${PROVIDER_ID_PREFIX}<id>", got ${JSON.stringify(raw.providerID)}`);
    } else {
      providerID = raw.providerID;
    }
  }
  const addresses = parseAddresses(raw.addresses, at, problems);
  const zone = optionalString(raw, 'zone', at, problems);
  const region = optionalString(raw, 'region', at, problems);
  const instanceType = optionalString(raw, 'instanceType', at, problems);
  const additionalLabels: Record<string, string> = {};
  if (raw.additionalLabels !== undefined && raw.additionalLabels !== null) {
    if (!isRecord(raw.additionalLabels)) problems.push(`${at}.additionalLabels: must be a mapping of strings`);
    else {
      for (const [k, v] of Object.entries(raw.additionalLabels)) {
        if (typeof v !== 'string') problems.push(`${at}.additionalLabels.${k}: must be a string`);
        else additionalLabels[k] = v;
      }
    }
  }
  let state: MachineState = 'running';
  if (raw.state !== undefined && raw.state !== null) {
    if (typeof raw.state === 'string' && STATES.has(raw.state as MachineState)) state = raw.state as MachineState;
    else problems.push(`${at}.state: must be running, stopped or absent, got ${JSON.stringify(raw.state)}`);
  }
  if (problems.length > before) return undefined;
  return {
    name,
    providerID,
    addresses,
    additionalLabels,
    state,
    ...(zone !== undefined ? { zone } : {}),
    ...(region !== undefined ? { region } : {}),
    ...(instanceType !== undefined ? { instanceType } : {}),
  };
}

/**
 * Parses and validates an inventory file's text.
 * @throws InventoryError listing every problem, each naming its field (`machines[2].state: …`).
 */
export function parseInventory(text: string): Inventory {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new InventoryError([`the file is not valid YAML: ${(err as Error).message}`]);
  }
  // An empty file is refused rather than read as "no machines": a file caught while being rewritten in
  // place must not make every machine disappear (their Nodes would be deleted).
  if (raw === null || raw === undefined) {
    throw new InventoryError(['the file is empty (write "machines: []" for an inventory without machines)']);
  }
  if (!isRecord(raw)) throw new InventoryError(['the file must hold a mapping with a "machines" list']);
  const problems: string[] = [];
  for (const k of Object.keys(raw)) if (k !== 'machines') problems.push(`${k}: unknown field`);
  const list = raw.machines;
  if (!Array.isArray(list)) throw new InventoryError(['machines: required, a list (may be empty: [])']);
  const machines: Machine[] = [];
  const byName = new Map<string, Machine>();
  const byProviderID = new Map<string, Machine>();
  list.forEach((m, i) => {
    const machine = parseMachine(m, `machines[${i}]`, problems);
    if (!machine) return;
    if (byName.has(machine.name)) problems.push(`machines[${i}].name: duplicate name "${machine.name}"`);
    if (byProviderID.has(machine.providerID)) {
      problems.push(`machines[${i}].providerID: duplicate providerID "${machine.providerID}"`);
    }
    machines.push(machine);
    byName.set(machine.name, machine);
    byProviderID.set(machine.providerID, machine);
  });
  if (problems.length > 0) throw new InventoryError(problems);
  return { machines, byName, byProviderID };
}
