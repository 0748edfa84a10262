import {
  DiskNotFoundError,
  findError,
  ImplementedElsewhereError,
  InstanceNotFoundError,
  NotImplementedError,
  RetryError,
} from '@ccm-kit/cloud-provider';
import {
  DanglingAttachError,
  DeletedVolumeInUseError,
  isDanglingError,
  isDeletedVolumeInUse,
} from '@ccm-kit/cloud-provider/volume';
import { describe, expect, it } from 'vitest';

describe('sentinel errors', () => {
  it('have the exact upstream messages and names', () => {
    expect(new InstanceNotFoundError().message).toBe('instance not found');
    expect(new NotImplementedError().message).toBe('unimplemented');
    expect(new ImplementedElsewhereError().message).toBe('implemented by alternate to cloud provider');
    expect(new DiskNotFoundError().message).toBe('disk is not found');
    expect(new InstanceNotFoundError().name).toBe('InstanceNotFoundError');
    expect(new NotImplementedError()).toBeInstanceOf(Error);
  });

  it('RetryError keeps its message and the delay in milliseconds, clamping bad delays to 0', () => {
    const e = new RetryError('LB create in progress', 42_000);
    expect(e.message).toBe('LB create in progress');
    expect(e.retryAfterMs).toBe(42_000);
    expect(e.retryAfter()).toBe(42_000);
    expect(new RetryError('x', -5).retryAfterMs).toBe(0);
    expect(new RetryError('x', Number.NaN).retryAfterMs).toBe(0);
    expect(new RetryError('x', Number.POSITIVE_INFINITY).retryAfterMs).toBe(0);
  });
});

describe('findError', () => {
  it('finds the error itself and through cause chains', () => {
    const retry = new RetryError('wait', 1000);
    expect(findError(retry, RetryError)).toBe(retry);
    const wrapped = new Error('failed to ensure load balancer: wait', {
      cause: new Error('middle', { cause: retry }),
    });
    expect(findError(wrapped, RetryError)).toBe(retry);
    expect(findError(wrapped, NotImplementedError)).toBeUndefined();
  });

  it('looks inside AggregateError and tolerates cycles and non-errors', () => {
    const nf = new InstanceNotFoundError();
    expect(findError(new AggregateError([new Error('a'), nf]), InstanceNotFoundError)).toBe(nf);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(findError(a, RetryError)).toBeUndefined();
    expect(findError(undefined, RetryError)).toBeUndefined();
    expect(findError('string error', RetryError)).toBeUndefined();
  });
});

describe('volume errors', () => {
  it('DeletedVolumeInUseError and isDeletedVolumeInUse (type check, no unwrapping)', () => {
    const e = new DeletedVolumeInUseError('volume vol-1 is in use');
    expect(e.message).toBe('volume vol-1 is in use');
    expect(isDeletedVolumeInUse(e)).toBe(true);
    expect(isDeletedVolumeInUse(new Error('x', { cause: e }))).toBe(false);
    expect(isDeletedVolumeInUse(new Error('volume in use'))).toBe(false);
  });

  it('DanglingAttachError carries the current node and device path', () => {
    const e = new DanglingAttachError('attached elsewhere', 'node-7', '/dev/xvdf');
    expect(e.currentNode).toBe('node-7');
    expect(e.devicePath).toBe('/dev/xvdf');
    expect(isDanglingError(e)).toBe(true);
    expect(isDanglingError(new Error('x', { cause: e }))).toBe(false);
    expect(findError(new Error('x', { cause: e }), DanglingAttachError)).toBe(e);
  });
});
