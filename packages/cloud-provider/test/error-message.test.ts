import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { describe, expect, it } from 'vitest';

describe('errorMessage', () => {
  it('gives the message of an Error, without its name or its cause', () => {
    expect(errorMessage(new TypeError('bad value'))).toBe('bad value');
    const wrapped = new Error('could not init cloud provider "x": boom', { cause: new Error('boom') });
    expect(errorMessage(wrapped)).toBe('could not init cloud provider "x": boom');
    expect(errorMessage(new Error(''))).toBe('');
  });

  it('gives String(value) for anything else thrown', () => {
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage({ message: 'not an Error' })).toBe('[object Object]');
  });
});
