import {
  type CloudProvider,
  defaultLoadBalancerName,
  getInstanceProviderID,
  InstanceNotFoundError,
  type Instances,
  isConflictError,
  NotImplementedError,
} from '@ccm-kit/cloud-provider';
import type { V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

describe('defaultLoadBalancerName', () => {
  it('prefixes "a", removes every "-" and cuts to 32 bytes', () => {
    expect(defaultLoadBalancerName({ metadata: { uid: '5d0a7d2e-1b2c-4d5e-8f90-123456789abc' } })).toBe(
      'a5d0a7d2e1b2c4d5e8f90123456789ab',
    );
    expect(
      defaultLoadBalancerName({ metadata: { uid: '5d0a7d2e-1b2c-4d5e-8f90-123456789abc' } }),
    ).toHaveLength(32);
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
    await expect(getInstanceProviderID(cloud(), 'n')).rejects.toThrow(
      'failed to get instances from cloud provider',
    );
    const undef: CloudProvider = { ...cloud(), instances: () => undefined };
    await expect(getInstanceProviderID(undef, 'n')).rejects.toThrow(
      'failed to get instances from cloud provider',
    );
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
  it('recognizes 409 by code, statusCode or Status body, not through causes', () => {
    expect(isConflictError({ code: 409 })).toBe(true);
    expect(isConflictError({ statusCode: 409 })).toBe(true);
    expect(isConflictError({ code: 500, body: '{"kind":"Status","code":409}' })).toBe(true);
    expect(isConflictError({ code: 404 })).toBe(false);
    expect(isConflictError(new Error('x', { cause: { code: 409 } }))).toBe(false);
    expect(isConflictError(undefined)).toBe(false);
  });
});
