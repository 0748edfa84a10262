import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLogger } from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InventoryError, parseInventory } from '../src/inventory.js';
import { InventoryWatcher } from '../src/inventory-watcher.js';

const GOOD = `
machines:
  - name: node-a
    addresses:
      - { type: InternalIP, address: 10.0.0.11 }
      - { type: InternalIP, address: "fd00::11" }
      - { type: Hostname, address: node-a }
    zone: zone-1
    region: region-1
    instanceType: small
    additionalLabels: { example.com/rack: r1 }
  - name: node-b
    providerID: local://b-42
    state: stopped
`;

function problemsOf(text: string): readonly string[] {
  try {
    parseInventory(text);
  } catch (err) {
    expect(err).toBeInstanceOf(InventoryError);
    return (err as InventoryError).problems;
  }
  throw new Error('expected an InventoryError');
}

describe('parseInventory', () => {
  it('reads machines with defaults and lookup tables', () => {
    const inv = parseInventory(GOOD);
    expect(inv.machines).toHaveLength(2);
    expect(inv.byName.get('node-a')).toEqual({
      name: 'node-a',
      providerID: 'local://node-a',
      addresses: [
        { type: 'InternalIP', address: '10.0.0.11' },
        { type: 'InternalIP', address: 'fd00::11' },
        { type: 'Hostname', address: 'node-a' },
      ],
      zone: 'zone-1',
      region: 'region-1',
      instanceType: 'small',
      additionalLabels: { 'example.com/rack': 'r1' },
      state: 'running',
    });
    expect(inv.byProviderID.get('local://b-42')?.state).toBe('stopped');
  });

  it('accepts an explicitly empty inventory but refuses an empty file', () => {
    expect(parseInventory('machines: []').machines).toEqual([]);
    expect(problemsOf('')).toEqual(['the file is empty (write "machines: []" for an inventory without machines)']);
    expect(problemsOf('# nothing')).toHaveLength(1);
    expect(problemsOf('{}')).toEqual(['machines: required, a list (may be empty: [])']);
  });

  it('reports every problem, naming the machine and field', () => {
    const problems = problemsOf(`
version: 2
machines:
  - name: Node_A
  - name: a
    providerID: aws://i-123
    addresses:
      - { type: InternalIP, address: 10.0.0.300 }
      - { type: Private, address: x }
      - 7
    zone: 3
    state: paused
    additionalLabels: { k: 1 }
    cpu: 4
  - name: b
  - name: b
    providerID: local://b
  - 12
`);
    expect(problems).toEqual([
      'version: unknown field',
      'machines[0].name: must be a Node name (lower-case DNS subdomain), got "Node_A"',
      'machines[1].cpu: unknown field',
      'machines[1].providerID: must be "local://<id>", got "aws://i-123"',
      'machines[1].addresses[0].address: "10.0.0.300" is not an IP address',
      'machines[1].addresses[1].type: must be InternalIP, ExternalIP, Hostname, InternalDNS or ExternalDNS',
      'machines[1].addresses[2]: must be { type, address } with non-empty strings',
      'machines[1].zone: must be a string',
      'machines[1].additionalLabels.k: must be a string',
      'machines[1].state: must be running, stopped or absent, got "paused"',
      'machines[3].name: duplicate name "b"',
      'machines[3].providerID: duplicate providerID "local://b"',
      'machines[4]: must be a mapping with at least a name',
    ]);
  });

  it('reports invalid YAML', () => {
    expect(problemsOf('machines: [')[0]).toMatch(/not valid YAML/);
    expect(problemsOf('machines: 3')).toEqual(['machines: required, a list (may be empty: [])']);
  });
});

const waitFor = (cond: () => boolean) => eventuallyValue(cond, { timeoutMs: 5_000, intervalMs: 10 });

describe('InventoryWatcher', () => {
  let dir: string;
  let path: string;
  let watcher: InventoryWatcher | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ccm-local-inv-'));
    path = join(dir, 'inventory.yaml');
    await writeFile(path, GOOD);
  });
  afterEach(async () => {
    watcher?.stop();
    watcher = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('fails to open a missing or invalid file', async () => {
    await expect(InventoryWatcher.open(join(dir, 'nope.yaml'))).rejects.toThrow(/cannot read the inventory file/);
    await writeFile(path, 'machines: [{ name: X }]');
    await expect(InventoryWatcher.open(path)).rejects.toBeInstanceOf(InventoryError);
  });

  it('reloads on change through fs.watch, including a save by rename', async () => {
    watcher = await InventoryWatcher.open(path, { pollIntervalMs: 60_000, debounceMs: 20 });
    const seen: number[] = [];
    watcher.onChange((inv) => seen.push(inv.machines.length));
    watcher.start();
    await writeFile(path, `${GOOD}  - name: node-c\n`);
    await waitFor(() => watcher!.generation === 1);
    expect(watcher.current().byName.has('node-c')).toBe(true);
    // An editor-style save: write a new file, rename it over the old one.
    const tmp = join(dir, '.inventory.yaml.swp');
    await writeFile(tmp, 'machines: [{ name: only }]');
    await rename(tmp, path);
    await waitFor(() => watcher!.generation === 2);
    expect(watcher.current().machines.map((m) => m.name)).toEqual(['only']);
    expect(seen).toEqual([3, 1]);
  });

  it('falls back to the periodic stat when watching is off', async () => {
    watcher = await InventoryWatcher.open(path, { pollIntervalMs: 50, useFsWatch: false });
    watcher.start();
    await writeFile(path, 'machines: [{ name: polled, state: absent }]');
    await waitFor(() => watcher!.generation === 1);
    expect(watcher.current().byName.get('polled')?.state).toBe('absent');
  });

  it('keeps the last good inventory on a bad edit or a deleted file, logging once, and recovers', async () => {
    const logger = new RecordingLogger();
    const errors = () => logger.records.filter((r) => r.level === 'error');
    watcher = await InventoryWatcher.open(path, { pollIntervalMs: 30, useFsWatch: false, logger });
    watcher.start();
    await writeFile(path, 'machines:\n  - name: node-a\n    state: exploded\n');
    await waitFor(() => watcher!.lastError !== undefined);
    expect(watcher.current().machines).toHaveLength(2);
    expect(watcher.lastError?.message).toMatch(/machines\[0\]\.state/);
    await new Promise((r) => setTimeout(r, 150)); // several polls
    expect(errors()).toHaveLength(1);

    await unlink(path);
    await waitFor(() => /cannot read/.test(watcher!.lastError?.message ?? ''));
    expect(watcher.current().machines).toHaveLength(2);
    expect(errors()).toHaveLength(2);

    await writeFile(path, 'machines: [{ name: back }]');
    await waitFor(() => watcher!.generation === 1);
    expect(watcher.lastError).toBeUndefined();
    expect(watcher.current().machines.map((m) => m.name)).toEqual(['back']);
  });

  it('never reads a file truncated for rewriting as "no machines"', async () => {
    watcher = await InventoryWatcher.open(path, {
      pollIntervalMs: 20,
      useFsWatch: false,
      logger: new RecordingLogger(),
    });
    watcher.start();
    await writeFile(path, '');
    await waitFor(() => watcher!.lastError !== undefined);
    expect(watcher.current().machines).toHaveLength(2);
    expect(watcher.generation).toBe(0);
  });

  it('reload() reports whether the inventory changed', async () => {
    watcher = await InventoryWatcher.open(path);
    expect(await watcher.reload()).toBe(false);
    await writeFile(path, 'machines: []');
    expect(await watcher.reload()).toBe(true);
    expect(watcher.current().machines).toEqual([]);
  });
});
