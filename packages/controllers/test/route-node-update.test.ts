import { initializedNode } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeUpdateAffectsRoutes } from '../src/route/node-update.js';

/** Node `node-1` at resourceVersion `rv`; `images` adds a container image to its status (not a route input). */
function node(rv: string, podCIDRs: string[] | undefined, ip: string, images = false): V1Node {
  const n = initializedNode('node-1', {
    metadata: { uid: '01', resourceVersion: rv },
    addresses: [{ type: 'InternalIP', address: ip }],
    ...(podCIDRs && { podCIDRs }),
  });
  if (images) n.status!.images = [{ names: ['registry/img:1'] }];
  return n;
}

describe('nodeUpdateAffectsRoutes (TestHandleNodeUpdate)', () => {
  it('RT-30: internal IP updated enqueues', () => {
    expect(
      nodeUpdateAffectsRoutes(node('1', ['10.120.0.0/24'], '10.0.1.1'), node('2', ['10.120.0.0/24'], '10.0.1.2')),
    ).toBe(true);
  });

  it('RT-31: pod CIDR updated enqueues', () => {
    expect(
      nodeUpdateAffectsRoutes(node('1', ['10.120.0.0/24'], '10.0.1.1'), node('2', ['10.121.0.0/24'], '10.0.1.1')),
    ).toBe(true);
  });

  it('RT-32: the identical object (equal resourceVersions, a resync) enqueues', () => {
    const n = node('', ['10.120.0.0/24'], '10.0.1.1');
    expect(nodeUpdateAffectsRoutes(n, n)).toBe(true);
    expect(
      nodeUpdateAffectsRoutes(node('7', ['10.120.0.0/24'], '10.0.1.1'), node('7', ['10.120.0.0/24'], '10.0.1.1')),
    ).toBe(true);
  });

  it('RT-33: an unrelated update enqueues only as a resync; with different resourceVersions it does not', () => {
    const a = node('', ['10.120.0.0/24'], '10.0.1.1');
    expect(nodeUpdateAffectsRoutes(a, node('', ['10.120.0.0/24'], '10.0.1.1', true))).toBe(true);
    expect(
      nodeUpdateAffectsRoutes(node('1', ['10.120.0.0/24'], '10.0.1.1'), node('2', ['10.120.0.0/24'], '10.0.1.1', true)),
    ).toBe(false);
  });

  it('nil and [] pod CIDRs differ (strict deep-equality)', () => {
    expect(nodeUpdateAffectsRoutes(node('1', undefined, '10.0.1.1'), node('2', [], '10.0.1.1'))).toBe(true);
  });
});
