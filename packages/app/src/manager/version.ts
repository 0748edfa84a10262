/**
 * The version of `@ccm-kit/app` and the User-Agent the manager's API clients send. Follows client-go's
 * `rest.DefaultKubernetesUserAgent` + `AddUserAgent` (`<command>/<version> (<os>/<arch>) <build>/<client>`), so
 * the API server — which names the field manager of an update after the text before the first `/` — records
 * `cloud-controller-manager` in `managedFields`, as for the upstream binary.
 */
import { createRequire } from 'node:module';

/** The package version (`0.1.0`), or `unknown` when package.json cannot be read. */
export function appVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Node's `process.arch` as Go's `GOARCH` spells it. */
function goArch(arch: string): string {
  return ({ x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64' } as Record<string, string>)[arch] ?? arch;
}

/**
 * The base User-Agent, `cloud-controller-manager/v<version> (<os>/<arch>) ccm-kit`; each client appends
 * `/<client name>` (for example `/node-controller`).
 */
export function managerUserAgent(command = 'cloud-controller-manager'): string {
  return `${command}/v${appVersion()} (${process.platform}/${goArch(process.arch)}) ccm-kit`;
}
