/**
 * The process-wide provider registry: vendors register a factory under their provider name, and the
 * cloud-controller-manager builds the provider named by `--cloud-provider` from `--cloud-config`.
 *
 * Follows upstream `k8s.io/cloud-provider/plugins.go`, made safe:
 * - registering a name twice throws (upstream exits the process with `klog.Fatalf`);
 * - an unreadable config file is an `Error` naming the provider and the file (upstream exits the process);
 * - factories receive the file's contents as UTF-8 text instead of an open reader, and may be `async`;
 * - factories run without any registry lock held, so a factory may call back into the registry;
 * - an empty name, a non-function factory and the reserved name `external` are refused at registration.
 */
import { readFile } from 'node:fs/promises';
import type { CloudProvider, CloudProviderFactory } from './cloud.js';
import { errorMessage } from './helpers/error-message.js';
import { EXTERNAL_CLOUD_PROVIDER_NAME } from './well-known.js';
import { closestName } from './closest-name.js';

const factories = new Map<string, CloudProviderFactory>();

/**
 * Registers `factory` under `name` (upstream `RegisterCloudProvider`), usually at module load of the
 * vendor's package.
 * @throws TypeError when `name` is not a non-empty string, is `external`, or `factory` is not a function.
 * @throws Error `cloud provider "<name>" was registered twice` when the name is taken.
 */
export function registerCloudProvider(name: string, factory: CloudProviderFactory): void {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('registerCloudProvider: name must be a non-empty string');
  }
  if (name === EXTERNAL_CLOUD_PROVIDER_NAME) {
    throw new TypeError(
      `registerCloudProvider: the name "${EXTERNAL_CLOUD_PROVIDER_NAME}" is reserved for external cloud-controller-managers`,
    );
  }
  if (typeof factory !== 'function') {
    throw new TypeError(`registerCloudProvider: factory for cloud provider "${name}" must be a function`);
  }
  if (factories.has(name)) {
    throw new Error(`cloud provider "${name}" was registered twice`);
  }
  factories.set(name, factory);
}

/**
 * Removes a registration. **For tests only**: production code registers once per process and never
 * unregisters. Returns true when `name` was registered.
 */
export function unregisterCloudProvider(name: string): boolean {
  return factories.delete(name);
}

/** True when a factory is registered under `name` (upstream `IsCloudProvider`). */
export function isCloudProvider(name: string): boolean {
  return factories.has(name);
}

/** True when `name` is exactly `external` (upstream `IsExternal`; case-sensitive). */
export function isExternal(name: string): boolean {
  return name === EXTERNAL_CLOUD_PROVIDER_NAME;
}

/** The registered provider names, sorted. */
export function registeredCloudProviders(): string[] {
  return [...factories.keys()].sort();
}

/**
 * Builds the provider registered under `name` (upstream `GetCloudProvider`).
 * @param config - the configuration text passed to the factory (`undefined` for none).
 * @returns the factory's result, or `undefined` when `name` is not registered.
 * @throws whatever the factory throws, unchanged.
 */
export async function getCloudProvider(name: string, config?: string): Promise<CloudProvider | undefined> {
  const factory = factories.get(name);
  if (factory === undefined) return undefined;
  return (await factory(config)) ?? undefined;
}

/**
 * Initializes the provider for `--cloud-provider=<name>` and `--cloud-config=<configFilePath>`
 * (upstream `InitCloudProvider`):
 * 1. `""` or `external` resolves to `undefined` (no in-process provider);
 * 2. a non-empty `configFilePath` is read as UTF-8 and its text passed to the factory; without one the
 *    factory receives `undefined`;
 * 3. the factory may be synchronous or `async`.
 * @throws Error `couldn't read cloud provider configuration "<file>" for cloud provider "<name>": <reason>`
 *   when the file cannot be read (the read error is the `cause`).
 * @throws Error `could not init cloud provider "<name>": <message>` when the factory throws (its error is the `cause`).
 * @throws Error `unknown cloud provider "<name>"` when the factory returned nothing, and
 *   `unknown cloud provider "<name>" (did you mean "<closest>"? registered: <names>)` when `name` is not registered.
 */
export async function initCloudProvider(name: string, configFilePath?: string): Promise<CloudProvider | undefined> {
  if (name === '' || isExternal(name)) return undefined;
  let config: string | undefined;
  if (configFilePath !== undefined && configFilePath !== '') {
    try {
      config = await readFile(configFilePath, 'utf-8');
    } catch (err) {
      throw new Error(
        `couldn't read cloud provider configuration "${configFilePath}" for cloud provider "${name}": ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
  let cloud: CloudProvider | undefined;
  try {
    cloud = await getCloudProvider(name, config);
  } catch (err) {
    throw new Error(`could not init cloud provider "${name}": ${errorMessage(err)}`, { cause: err });
  }
  if (cloud === undefined || cloud === null) {
    throw new Error(`unknown cloud provider "${name}"${factories.has(name) ? '' : ` (${describeRegistered(name)})`}`);
  }
  return cloud;
}

/**
 * The registered names for an unknown `name`, with the closest one first when it looks like a typo:
 * `did you mean "rancher"? registered: mycloud, rancher`.
 */
function describeRegistered(name: string): string {
  const names = registeredCloudProviders();
  if (names.length === 0) return 'none is registered: call registerCloudProvider first';
  const guess = closestName(name, names);
  return `${guess ? `did you mean ${JSON.stringify(guess)}? ` : ''}registered: ${names.join(', ')}`;
}

/**
 * The error for a built-in (in-tree) provider name when only external providers are supported
 * (upstream `ErrorForDisabledProvider`).
 */
export function errorForDisabledProvider(name: string): Error {
  return new Error(
    `cloud provider "${name}" was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider`,
  );
}

/**
 * The two log lines upstream's `DisableWarningForProvider` prints (an INFO and a WARNING line), or
 * `undefined` for `external`, which prints nothing. The caller logs them.
 */
export function disabledProviderWarnings(name: string): { info: string; warning: string } | undefined {
  if (isExternal(name)) return undefined;
  return {
    info: `Please make sure you are running an external cloud controller manager binary for provider "${name}". In-tree cloud providers are disabled. Refer to https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/cloud-provider/sample for an example implementation.`,
    warning: `built-in cloud providers are disabled. Please set "--cloud-provider=external" and migrate to an external cloud controller manager for provider "${name}"`,
  };
}
