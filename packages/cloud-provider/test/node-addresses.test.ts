import { addToNodeAddresses, getNodeAddressesFromNodeIP, parseNodeIPAnnotation } from '@ccm-kit/cloud-provider';
import type { V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

const a = (type: string, address: string): V1NodeAddress => ({ type, address });
const int = (ip: string) => a('InternalIP', ip);
const ext = (ip: string) => a('ExternalIP', ip);
const hostname = a('Hostname', 'testnode');

describe('addToNodeAddresses (upstream TestAddToNodeAddresses)', () => {
  it('NH-01 add no addresses to empty node addresses', () => {
    expect(addToNodeAddresses([])).toEqual([]);
    expect(addToNodeAddresses(undefined)).toEqual([]);
  });

  it('NH-02 add new node addresses to empty existing addresses', () => {
    expect(addToNodeAddresses([], ext('1.1.1.1'), a('Hostname', 'localhost'))).toEqual([
      ext('1.1.1.1'),
      a('Hostname', 'localhost'),
    ]);
  });

  it('NH-03 add a duplicate node address', () => {
    expect(addToNodeAddresses([], ext('1.1.1.1'), ext('1.1.1.1'))).toEqual([ext('1.1.1.1')]);
  });

  it('NH-04 add 1 new and 1 duplicate address', () => {
    const existing = [ext('1.1.1.1'), int('10.1.1.1')];
    const out = addToNodeAddresses(existing, ext('1.1.1.1'), a('Hostname', 'localhost'));
    expect(out).toEqual([ext('1.1.1.1'), int('10.1.1.1'), a('Hostname', 'localhost')]);
    expect(existing).toHaveLength(2);
  });

  it('keeps an address that differs only by type', () => {
    expect(addToNodeAddresses([int('1.1.1.1')], ext('1.1.1.1'))).toEqual([int('1.1.1.1'), ext('1.1.1.1')]);
  });
});

describe('getNodeAddressesFromNodeIP (upstream TestGetNodeAddressesFromNodeIP)', () => {
  it('NH-05 A single InternalIP', () => {
    expect(getNodeAddressesFromNodeIP('10.1.1.1', [int('10.1.1.1'), hostname])).toEqual([int('10.1.1.1'), hostname]);
  });

  it('NH-06 NodeIP is external', () => {
    expect(getNodeAddressesFromNodeIP('55.55.55.55', [int('10.1.1.1'), ext('55.55.55.55'), hostname])).toEqual([
      ext('55.55.55.55'),
      int('10.1.1.1'),
      hostname,
    ]);
  });

  it('NH-07 InternalIP and ExternalIP are the same', () => {
    const cloud = [int('44.44.44.44'), ext('44.44.44.44'), int('55.55.55.55'), ext('55.55.55.55'), hostname];
    expect(getNodeAddressesFromNodeIP('55.55.55.55', cloud)).toEqual([
      int('55.55.55.55'),
      ext('55.55.55.55'),
      hostname,
    ]);
  });

  it('NH-08 An Internal/ExternalIP, an Internal/ExternalDNS', () => {
    const cloud = [
      int('10.1.1.1'),
      ext('55.55.55.55'),
      a('InternalDNS', 'ip-10-1-1-1.us-west-2.compute.internal'),
      a('ExternalDNS', 'ec2-55-55-55-55.us-west-2.compute.amazonaws.com'),
      hostname,
    ];
    expect(getNodeAddressesFromNodeIP('10.1.1.1', cloud)).toEqual(cloud);
  });

  it('NH-09 An Internal with multiple internal IPs', () => {
    const cloud = [int('10.1.1.1'), int('10.2.2.2'), int('10.3.3.3'), ext('55.55.55.55'), hostname];
    expect(getNodeAddressesFromNodeIP('10.1.1.1', cloud)).toEqual([int('10.1.1.1'), ext('55.55.55.55'), hostname]);
  });

  it("NH-10 An InternalIP that isn't valid: should error", () => {
    const cloud = [int('10.1.1.1'), ext('55.55.55.55'), hostname];
    expect(() => getNodeAddressesFromNodeIP('10.2.2.2', cloud)).toThrow(
      'failed to get node address from cloud provider that matches ip: 10.2.2.2',
    );
  });

  it('NH-11 Dual-stack cloud, with nodeIP, different IPv6 formats', () => {
    const cloud = [int('10.1.1.1'), int('2600:1f14:1d4:d101:0:0:0:ba3d'), hostname];
    expect(getNodeAddressesFromNodeIP('2600:1f14:1d4:d101::ba3d', cloud)).toEqual([
      int('2600:1f14:1d4:d101:0:0:0:ba3d'),
      hostname,
    ]);
  });

  it('NH-12 Single-stack cloud, dual-stack request', () => {
    expect(() => getNodeAddressesFromNodeIP('10.1.1.1,fc01:1234::5678', [int('10.1.1.1'), hostname])).toThrow(
      'failed to get node address from cloud provider that matches ip: fc01:1234::5678',
    );
  });

  it('NH-13 Dual-stack cloud, IPv4 first, IPv4-primary request', () => {
    const cloud = [int('10.1.1.1'), int('fc01:1234::5678'), hostname];
    expect(getNodeAddressesFromNodeIP('10.1.1.1,fc01:1234::5678', cloud)).toEqual(cloud);
  });

  it('NH-14 Dual-stack cloud, IPv6 first, IPv4-primary request', () => {
    const cloud = [int('fc01:1234::5678'), int('10.1.1.1'), hostname];
    expect(getNodeAddressesFromNodeIP('10.1.1.1,fc01:1234::5678', cloud)).toEqual([
      int('10.1.1.1'),
      int('fc01:1234::5678'),
      hostname,
    ]);
  });

  it('NH-15 Dual-stack cloud, dual-stack request, multiple IPs', () => {
    const cloud = [int('10.1.1.1'), int('10.1.1.2'), int('fc01:1234::1234'), int('fc01:1234::5678'), hostname];
    expect(getNodeAddressesFromNodeIP('10.1.1.1,fc01:1234::5678', cloud)).toEqual([
      int('10.1.1.1'),
      int('fc01:1234::5678'),
      hostname,
    ]);
  });

  it('NH-16 Dual-stack cloud, dual-stack request, extra ExternalIP', () => {
    const cloud = [int('10.1.1.1'), int('fc01:1234::5678'), ext('55.55.55.55'), hostname];
    expect(getNodeAddressesFromNodeIP('10.1.1.1,fc01:1234::5678', cloud)).toEqual([
      int('10.1.1.1'),
      int('fc01:1234::5678'),
      ext('55.55.55.55'),
      hostname,
    ]);
  });

  it('NH-17 Dual-stack cloud, dual-stack request, multiple ExternalIPs', () => {
    const cloud = [int('fc01:1234::5678'), ext('2001:db1::1'), int('10.1.1.1'), ext('55.55.55.55'), hostname];
    expect(getNodeAddressesFromNodeIP('fc01:1234::5678,10.1.1.1', cloud)).toEqual([
      int('fc01:1234::5678'),
      int('10.1.1.1'),
      ext('2001:db1::1'),
      ext('55.55.55.55'),
      hostname,
    ]);
  });

  it('NH-18 Dual-stack cloud, dual-stack request, mixed InternalIP/ExternalIP match', () => {
    const cloud = [int('10.1.1.1'), int('fc01:1234::5678'), ext('55.55.55.55'), ext('2001:db1::1'), hostname];
    expect(getNodeAddressesFromNodeIP('55.55.55.55,fc01:1234::5678', cloud)).toEqual([
      ext('55.55.55.55'),
      int('fc01:1234::5678'),
      hostname,
    ]);
  });

  it('wraps annotation errors with the annotation value', () => {
    expect(() => getNodeAddressesFromNodeIP('10.1.1.1, fc01::1', [int('10.1.1.1')])).toThrow(
      'failed to parse node IP "10.1.1.1, fc01::1": could not parse " fc01::1"',
    );
  });

  it('does not modify its input and never matches unparsable cloud addresses', () => {
    const cloud = [a('InternalIP', 'not-an-ip'), int('10.1.1.1')];
    const copy = structuredClone(cloud);
    expect(getNodeAddressesFromNodeIP('10.1.1.1', cloud)).toEqual([int('10.1.1.1')]);
    expect(cloud).toEqual(copy);
  });
});

describe('parseNodeIPAnnotation (component-helpers ParseNodeIPAnnotation)', () => {
  it('accepts one IP or a dual-stack pair, in order, in canonical form', () => {
    expect(parseNodeIPAnnotation('10.1.1.1')).toEqual(['10.1.1.1']);
    expect(parseNodeIPAnnotation('fc01:1234:0:0::5678,10.1.1.1')).toEqual(['fc01:1234::5678', '10.1.1.1']);
    expect(parseNodeIPAnnotation('0.0.0.0')).toEqual(['0.0.0.0']);
  });

  it('accepts IPv4 with leading zeros (sloppy parsing)', () => {
    expect(parseNodeIPAnnotation('010.001.001.001')).toEqual(['10.1.1.1']);
  });

  it('rejects items that are not IPs, without trimming', () => {
    expect(() => parseNodeIPAnnotation('')).toThrow('could not parse ""');
    expect(() => parseNodeIPAnnotation(' 10.1.1.1')).toThrow('could not parse " 10.1.1.1"');
    expect(() => parseNodeIPAnnotation('10.1.1.1,')).toThrow('could not parse ""');
    expect(() => parseNodeIPAnnotation('256.1.1.1')).toThrow('could not parse "256.1.1.1"');
    expect(() => parseNodeIPAnnotation('fe80::1%eth0')).toThrow('could not parse "fe80::1%eth0"');
  });

  it('rejects more than 2 IPs and same-family pairs', () => {
    const msg = 'must contain either a single IP or a dual-stack pair of IPs';
    expect(() => parseNodeIPAnnotation('10.1.1.1,10.1.1.2')).toThrow(msg);
    expect(() => parseNodeIPAnnotation('fc01::1,fc01::2')).toThrow(msg);
    expect(() => parseNodeIPAnnotation('10.1.1.1,fc01::1,10.1.1.2')).toThrow(msg);
  });

  it('rejects unspecified addresses in a dual-stack pair', () => {
    const msg = "dual-stack node IP cannot include '0.0.0.0' or '::'";
    expect(() => parseNodeIPAnnotation('0.0.0.0,fc01::1')).toThrow(msg);
    expect(() => parseNodeIPAnnotation('10.1.1.1,::')).toThrow(msg);
  });
});
