import type { RequestLogEntry } from '@ccm-kit/example-mockcloud/api-server';
import { describe, expect, it } from 'vitest';
import { groupOverlaps } from '../src/invariants.ts';

const call = (caller: string, method: string, path: string, time: number, endTime?: number): RequestLogEntry => ({
  caller,
  method,
  path,
  time,
  status: 200,
  userAgent: undefined,
  ...(endTime === undefined ? {} : { endTime }),
});

describe('groupOverlaps', () => {
  it("counts a caller's load-balancer call that began before its previous one was answered", () => {
    const { found, checked } = groupOverlaps([
      call('ccm-0', 'POST', '/v1/load_balancers', 0, 10),
      call('ccm-0', 'PATCH', '/v1/load_balancers/lb-1', 10, 20), // right after: fine
      call('ccm-0', 'GET', '/v1/load_balancers/lb-1', 15, 16), // overlaps the PATCH
      call('ccm-0', 'DELETE', '/v1/load_balancers/lb-2?force=1', 30), // never answered (reset) ...
      call('ccm-0', 'GET', '/v1/load_balancers/lb-3', 40, 41), // ... so this one overlaps it
    ]);
    expect(found.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v1/load_balancers/lb-1',
      'GET /v1/load_balancers/lb-3',
    ]);
    expect(checked).toBe(5);
  });

  it('leaves out listings, other resources and other callers', () => {
    const { found, checked } = groupOverlaps([
      call('ccm-0', 'PATCH', '/v1/load_balancers/lb-1', 0, 20),
      call('ccm-0', 'GET', '/v1/load_balancers?label_selector=a%3Db', 5, 6),
      call('ccm-0', 'GET', '/v1/load_balancers', 5, 6),
      call('ccm-0', 'GET', '/v1/servers/srv-1', 5, 6),
      call('ccm-1', 'PATCH', '/v1/load_balancers/lb-1', 5, 6),
    ]);
    expect(found).toEqual([]);
    expect(checked).toBe(2);
  });
});
