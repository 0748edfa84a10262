import {
  type CloudProvider,
  defaultLoadBalancerName,
  getInstanceProviderID,
  InstanceNotFoundError,
  type Instances,
  isConflictError,
  NotImplementedError,
  retryOnConflict,
} from '@ccm-kit/cloud-provider';
import type { V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

describe('defaultLoadBalancerName', () => {
  it('prefixes "a", removes every "-" and cuts to 32 bytes', () => {
    expect(defaultLoadBalancerName({ metadata: { uid: '5d0a7d2e-1b2c-4d5e-8f90-123456789abc' } })).toBe(
      'a5d0a7d2e1b2c4d5e8f90123456789ab',
    );
    expect(defaultLoadBalancerName({ metadata: { uid: '5d0a7d2e-1b2c-4d5e-8f90-123456789abc' } })).toHaveLength(32);
  });

  it('gives "a" for an empty or missing UID and keeps short names whole', () => {
    expect(defaultLoadBalancerName({ metadata: { uid: '' } })).toBe('a');
    expect(defaultLoadBalancerName({})).toBe('a');
    expect(defaultLoadBalancerName({ metadata: { uid: 'ab-cd' } })).toBe('aabcd');
  });
});

function instances(instanceID: Instances['instanceID']): Instances {
  const no = async (): Promise<never> => {
    throw new NotImplementedError();
  };
  return {
    instanceID,
    nodeAddresses: no as () => Promise<V1NodeAddress[]>,
    nodeAddressesByProviderID: no as () => Promise<V1NodeAddress[]>,
    instanceType: no,
    instanceTypeByProviderID: no,
    addSSHKeyToAllInstances: no,
    currentNodeName: no,
    instanceExistsByProviderID: no,
    instanceShutdownByProviderID: no,
  };
}

const cloud = (inst?: Instances): CloudProvider => ({
  providerName: () => 'fake',
  hasClusterID: () => true,
  ...(inst ? { instances: () => inst } : {}),
});

describe('getInstanceProviderID', () => {
  it('gives <provider>://<id> and passes the node name and signal', async () => {
    const seen: unknown[] = [];
    const signal = new AbortController().signal;
    const c = cloud(
      instances(async (name, s) => {
        seen.push(name, s);
        return '12345';
      }),
    );
    expect(await getInstanceProviderID(c, 'node0', signal)).toBe('fake://12345');
    expect(seen).toEqual(['node0', signal]);
  });

  it('keeps the quirk: an empty instance ID gives "fake://"', async () => {
    expect(await getInstanceProviderID(cloud(instances(async () => '')), 'n')).toBe('fake://');
  });

  it('fails when Instances is unsupported (missing or undefined)', async () => {
    await expect(getInstanceProviderID(cloud(), 'n')).rejects.toThrow('failed to get instances from cloud provider');
    const undef: CloudProvider = { ...cloud(), instances: () => undefined };
    await expect(getInstanceProviderID(undef, 'n')).rejects.toThrow('failed to get instances from cloud provider');
  });

  it('rethrows NotImplementedError and InstanceNotFoundError unwrapped (same object)', async () => {
    const ni = new NotImplementedError();
    await expect(
      getInstanceProviderID(
        cloud(
          instances(async () => {
            throw ni;
          }),
        ),
        'n',
      ),
    ).rejects.toBe(ni);
    const nf = new InstanceNotFoundError();
    await expect(
      getInstanceProviderID(
        cloud(
          instances(async () => {
            throw nf;
          }),
        ),
        'n',
      ),
    ).rejects.toBe(nf);
  });

  it('wraps any other error, keeping it as the cause (a wrapped sentinel is not unwrapped)', async () => {
    const inner = new Error('api down', { cause: new InstanceNotFoundError() });
    const err = (await getInstanceProviderID(
      cloud(
        instances(async () => {
          throw inner;
        }),
      ),
      'n',
    ).catch((e: Error) => e)) as Error;
    expect(err.message).toBe('failed to get instance ID from cloud provider: api down');
    expect(err.cause).toBe(inner);
    expect(err).not.toBeInstanceOf(InstanceNotFoundError);
  });
});

describe('isConflictError', () => {
  it('recognizes 409 by code, statusCode or Status body, through causes, but not AlreadyExists', () => {
    expect(isConflictError({ code: 409 })).toBe(true);
    expect(isConflictError({ statusCode: 409 })).toBe(true);
    expect(isConflictError({ code: 500, body: '{"kind":"Status","code":409}' })).toBe(true);
    expect(isConflictError({ code: 404 })).toBe(false);
    expect(isConflictError(new Error('x', { cause: { code: 409 } }))).toBe(true);
    expect(isConflictError({ code: 409, body: '{"kind":"Status","reason":"AlreadyExists","code":409}' })).toBe(false);
    expect(isConflictError(undefined)).toBe(false);
  });
});

describe('retryOnConflict', () => {
  const conflict = () =>
    Object.assign(new Error('conflict'), {
      code: 409,
      body: '{"kind":"Status","reason":"Conflict","code":409}',
    });
  const noSleep = { sleep: async () => {} };

  it('retries a conflict up to `steps` attempts and throws the last conflict', async () => {
    let calls = 0;
    const err = conflict();
    await expect(
      retryOnConflict(
        async () => {
          calls++;
          throw err;
        },
        { backoff: { steps: 5, durationMs: 1, jitter: 1 }, ...noSleep },
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(5);
  });

  it('returns the value once the function succeeds; other errors are not retried', async () => {
    let calls = 0;
    const v = await retryOnConflict(async () => {
      if (++calls < 3) throw new Error('wrapped', { cause: conflict() });
      return 'ok';
    }, noSleep);
    expect(v).toBe('ok');
    expect(calls).toBe(3);
    for (const e of [
      new Error('net'),
      Object.assign(new Error('exists'), { code: 409, body: '{"reason":"AlreadyExists","code":409}' }),
    ]) {
      let n = 0;
      await expect(
        retryOnConflict(async () => {
          n++;
          throw e;
        }, noSleep),
      ).rejects.toBe(e);
      expect(n).toBe(1);
    }
  });

  it('sleeps duration × (1 + jitter × random) between attempts and stops when the signal aborts', async () => {
    const sleeps: number[] = [];
    const ac = new AbortController();
    let calls = 0;
    const err = conflict();
    await expect(
      retryOnConflict(
        async () => {
          if (++calls === 3) ac.abort();
          throw err;
        },
        {
          backoff: { steps: 10, durationMs: 100, jitter: 1 },
          random: () => 0.5,
          sleep: async (ms) => {
            sleeps.push(ms);
          },
          signal: ac.signal,
        },
      ),
    ).rejects.toBe(err);
    expect(sleeps).toEqual([150, 150]);
    expect(calls).toBe(3);
  });
});
