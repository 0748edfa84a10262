import { describe, expect, it } from 'vitest';
import { formatReport } from '../src/commands/conformance.js';

describe('ccm-kit conformance report', () => {
  it('counts and lists passed, pending and broke checks with their reasons', () => {
    const text = formatReport([
      { facet: 'provider', title: 'hasClusterID() returns a boolean', state: 'passed' },
      {
        facet: 'instancesV2',
        title: 'instanceExists is true for existingNode',
        state: 'pending',
        detail: 'instanceExists not implemented',
      },
      {
        facet: 'loadBalancer',
        title: 'a second ensureLoadBalancer keeps the same ingress',
        state: 'broke',
        detail: 'ingress changed',
      },
    ]);
    expect(text.split('\n')).toEqual([
      'provider conformance: 1 passed, 1 pending, 1 broke',
      '  PASSED   provider › hasClusterID() returns a boolean',
      '  PENDING  instancesV2 › instanceExists is true for existingNode — instanceExists not implemented',
      '  BROKE    loadBalancer › a second ensureLoadBalancer keeps the same ingress — ingress changed',
    ]);
  });
});
