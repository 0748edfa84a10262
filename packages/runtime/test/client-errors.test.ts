import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  errorStatus,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTooManyRequests,
  statusCode,
} from '../src/client/index.js';

const apiErr = (code: number, reason?: string, message = 'm') =>
  new ApiException(code, 'HTTP', JSON.stringify({ kind: 'Status', code, ...(reason ? { reason } : {}), message }), {});

describe('API error helpers', () => {
  it('read the code and the Status body from a JSON string body', () => {
    const e = apiErr(404, 'NotFound', 'nodes "a" not found');
    expect(statusCode(e)).toBe(404);
    expect(errorStatus(e)).toEqual({ code: 404, reason: 'NotFound', message: 'nodes "a" not found' });
    expect(isNotFound(e)).toBe(true);
  });

  it('accept an already parsed body and errors carrying statusCode (watch errors)', () => {
    expect(isNotFound(new ApiException(404, 'x', { reason: 'NotFound' }, {}))).toBe(true);
    expect(statusCode(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(410);
    expect(isGone(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(true);
  });

  it('tell Conflict from AlreadyExists although both are 409', () => {
    expect(isConflict(apiErr(409, 'Conflict'))).toBe(true);
    expect(isAlreadyExists(apiErr(409, 'Conflict'))).toBe(false);
    expect(isAlreadyExists(apiErr(409, 'AlreadyExists'))).toBe(true);
    expect(isConflict(apiErr(409, 'AlreadyExists'))).toBe(false);
    // A bare 409 (no or unknown reason) is a conflict, as apimachinery.
    expect(isConflict(apiErr(409))).toBe(true);
    expect(isConflict(apiErr(409, 'SomethingNew'))).toBe(true);
    expect(isAlreadyExists(apiErr(409))).toBe(false);
  });

  it('classify 410 Gone, Expired and "too old resource version"', () => {
    expect(isGone(apiErr(410, 'Gone'))).toBe(true);
    expect(isGone(apiErr(410, 'Expired'))).toBe(true);
    expect(isGone({ body: { kind: 'Status', reason: 'Expired', message: 'x' } })).toBe(true);
    expect(isGone({ body: { message: 'too old resource version: 1 (812)' } })).toBe(false); // no code, no reason
    expect(isGone({ body: { code: 500, reason: 'InternalError', message: 'too old resource version: 1 (812)' } })).toBe(
      true,
    );
    expect(isGone(apiErr(404, 'NotFound'))).toBe(false);
  });

  it('look through the cause chain', () => {
    const wrapped = new Error('sync failed', {
      cause: new Error('patch', { cause: apiErr(404, 'NotFound') }),
    });
    expect(isNotFound(wrapped)).toBe(true);
    expect(statusCode(wrapped)).toBe(404);
  });

  it('return false/undefined for non-API errors and odd values without throwing', () => {
    for (const v of [
      undefined,
      null,
      'x',
      42,
      new Error('ECONNRESET'),
      Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
      new DOMException('a', 'AbortError'),
    ]) {
      expect(statusCode(v)).toBeUndefined();
      expect(isNotFound(v)).toBe(false);
      expect(isConflict(v)).toBe(false);
      expect(isGone(v)).toBe(false);
    }
    expect(isNotFound(new ApiException(404, 'x', 'not json', {}))).toBe(true);
    expect(isTooManyRequests(apiErr(429, 'TooManyRequests'))).toBe(true);
  });
});
