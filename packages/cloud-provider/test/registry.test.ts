import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CloudProvider,
  getCloudProvider,
  initCloudProvider,
  isCloudProvider,
  isExternal,
  registerCloudProvider,
  registeredCloudProviders,
  unregisterCloudProvider,
} from '@ccm-kit/cloud-provider';
import { disabledProviderWarnings, errorForDisabledProvider } from '@ccm-kit/cloud-provider/internal';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const provider = (name: string, extra: Partial<CloudProvider> = {}): CloudProvider => ({
  providerName: () => name,
  hasClusterID: () => true,
  ...extra,
});

const registered: string[] = [];
function register(name: string, factory: Parameters<typeof registerCloudProvider>[1]) {
  registerCloudProvider(name, factory);
  registered.push(name);
}
afterEach(() => {
  for (const n of registered.splice(0)) unregisterCloudProvider(n);
});

const dir = mkdtempSync(join(tmpdir(), 'ccm-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('registerCloudProvider', () => {
  it('registers a name; isCloudProvider and registeredCloudProviders (sorted) see it', () => {
    register('zeta-cloud', () => provider('zeta-cloud'));
    register('alpha-cloud', () => provider('alpha-cloud'));
    expect(isCloudProvider('alpha-cloud')).toBe(true);
    expect(isCloudProvider('beta-cloud')).toBe(false);
    expect(registeredCloudProviders()).toEqual(['alpha-cloud', 'zeta-cloud']);
  });

  it('throws on a duplicate name, naming it, and keeps the first factory', async () => {
    register('dup', () => provider('first'));
    expect(() => registerCloudProvider('dup', () => provider('second'))).toThrow(
      'cloud provider "dup" was registered twice',
    );
    expect((await getCloudProvider('dup'))?.providerName()).toBe('first');
  });

  it('throws on an empty name, a non-function factory and the reserved name external', () => {
    expect(() => registerCloudProvider('', () => provider('x'))).toThrow(TypeError);
    expect(() => registerCloudProvider('x', undefined as never)).toThrow(
      'factory for cloud provider "x" must be a function',
    );
    expect(() => registerCloudProvider('external', () => provider('x'))).toThrow('reserved');
    expect(isCloudProvider('x')).toBe(false);
  });

  it('unregisterCloudProvider (test hook) frees the name', () => {
    registerCloudProvider('temp', () => provider('temp'));
    expect(unregisterCloudProvider('temp')).toBe(true);
    expect(unregisterCloudProvider('temp')).toBe(false);
    expect(isCloudProvider('temp')).toBe(false);
  });
});

describe('getCloudProvider', () => {
  it('is undefined for an unknown name and passes the config to the factory', async () => {
    expect(await getCloudProvider('nope')).toBeUndefined();
    const seen: (string | undefined)[] = [];
    register('cfg', (config) => {
      seen.push(config);
      return provider('cfg');
    });
    await getCloudProvider('cfg', 'a: 1');
    await getCloudProvider('cfg');
    expect(seen).toEqual(['a: 1', undefined]);
  });

  it('rethrows the factory error unchanged, and lets a factory call back into the registry', async () => {
    const boom = new Error('boom');
    register('bad', () => {
      throw boom;
    });
    await expect(getCloudProvider('bad')).rejects.toBe(boom);
    register('reentrant', async () => (isCloudProvider('reentrant') ? provider('reentrant') : undefined));
    expect((await getCloudProvider('reentrant'))?.providerName()).toBe('reentrant');
  });
});

describe('initCloudProvider (upstream InitCloudProvider)', () => {
  it('returns undefined for "" and "external" without calling anything', async () => {
    expect(await initCloudProvider('')).toBeUndefined();
    expect(await initCloudProvider('external', '/does/not/exist')).toBeUndefined();
  });

  it('reads the config file as UTF-8 and passes its contents; undefined without a path', async () => {
    const file = join(dir, 'cloud.conf');
    writeFileSync(file, 'région: é\n');
    const seen: (string | undefined)[] = [];
    register('filecloud', async (config) => {
      seen.push(config);
      return provider('filecloud');
    });
    expect((await initCloudProvider('filecloud', file))?.providerName()).toBe('filecloud');
    await initCloudProvider('filecloud');
    await initCloudProvider('filecloud', '');
    expect(seen).toEqual(['région: é\n', undefined, undefined]);
  });

  it('an unreadable file is an error naming the provider and the file', async () => {
    register('filecloud2', () => provider('filecloud2'));
    const missing = join(dir, 'missing.conf');
    const err = await initCloudProvider('filecloud2', missing).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`"${missing}"`);
    expect((err as Error).message).toContain('cloud provider "filecloud2"');
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('a throwing factory gives could not init cloud provider with the cause', async () => {
    const cause = new Error('bad credentials');
    register('throws', () => {
      throw cause;
    });
    const err = (await initCloudProvider('throws').catch((e: Error) => e)) as Error;
    expect(err.message).toBe('could not init cloud provider "throws": bad credentials');
    expect(err.cause).toBe(cause);
    register('rejects', async () => {
      throw new Error('async failure');
    });
    await expect(initCloudProvider('rejects')).rejects.toThrow(
      'could not init cloud provider "rejects": async failure',
    );
  });

  it('an unknown name, or a factory returning nothing, gives unknown cloud provider', async () => {
    await expect(initCloudProvider('never-registered')).rejects.toThrow('unknown cloud provider "never-registered"');
    register('nothing', () => undefined);
    await expect(initCloudProvider('nothing')).rejects.toThrow('unknown cloud provider "nothing"');
    register('null-ish', () => null as never);
    await expect(initCloudProvider('null-ish')).rejects.toThrow('unknown cloud provider "null-ish"');
  });

  it('an unregistered name lists the registered names and suggests the closest', async () => {
    register('rancher', () => ({ providerName: () => 'rancher', hasClusterID: () => true }));
    const err = (await initCloudProvider('ranchr').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^unknown cloud provider "ranchr" \(did you mean "rancher"\? registered: .*\brancher\b.*\)$/,
    );
    const far = (await initCloudProvider('zzzzzzzzzz').catch((e: unknown) => e)) as Error;
    expect(far.message).toMatch(/^unknown cloud provider "zzzzzzzzzz" \(registered: .*rancher.*\)$/);
    expect(far.message).not.toContain('did you mean');
  });
});

describe('external and disabled providers', () => {
  it('isExternal is exact and case-sensitive', () => {
    expect(isExternal('external')).toBe(true);
    expect(isExternal('External')).toBe(false);
    expect(isExternal('')).toBe(false);
  });

  it('errorForDisabledProvider has the upstream message', () => {
    expect(errorForDisabledProvider('aws').message).toBe(
      'cloud provider "aws" was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider',
    );
  });

  it('disabledProviderWarnings gives the two upstream lines, nothing for external', () => {
    expect(disabledProviderWarnings('external')).toBeUndefined();
    const w = disabledProviderWarnings('gce');
    expect(w?.info).toContain('external cloud controller manager binary for provider "gce"');
    expect(w?.warning).toBe(
      'built-in cloud providers are disabled. Please set "--cloud-provider=external" and migrate to an external cloud controller manager for provider "gce"',
    );
  });
});
