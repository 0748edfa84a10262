/**
 * The version of `@ccm-kit/app` and the User-Agent the manager's API clients send. Follows client-go's
 * `rest.DefaultKubernetesUserAgent` + `AddUserAgent` (`<command>/<version> (<os>/<arch>) <build>/<client>`), so
 * the API server — which names the field manager of an update after the text before the first `/` — records
 * the command name (`cloud-controller-manager` unless the vendor names its own) in `managedFields`, as for a
 * Go binary of that name.
 */

/**
 * The `@ccm-kit/app` version, held in code so that a bundle (which has no package.json next to it) knows it
 * too; a unit test keeps it equal to package.json's.
 */
export const CCM_KIT_VERSION = '0.1.0';

/** The `@ccm-kit/app` version (`0.1.0`). */
export function appVersion(): string {
  return CCM_KIT_VERSION;
}

/** Node's `process.arch` as Go's `GOARCH` spells it. */
function goArch(arch: string): string {
  return ({ x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64' } as Record<string, string>)[arch] ?? arch;
}

/**
 * The base User-Agent, `<command>/v<version> (<os>/<arch>) ccm-kit`; each client appends `/<client name>` (for
 * example `/node-controller`).
 * @param command the vendor's command name (default `cloud-controller-manager`).
 * @param version the vendor's version without `v` (default ccm-kit's).
 */
export function managerUserAgent(command = 'cloud-controller-manager', version = appVersion()): string {
  return `${command}/v${version.replace(/^v/, '')} (${process.platform}/${goArch(process.arch)}) ccm-kit`;
}

/**
 * `--version=raw`: the version information as one JSON object (component-base prints its `version.Info` struct),
 * for scripts: `{"command":…,"version":…,"ccmKitVersion":…,"nodeVersion":…,"platform":"linux/amd64"}`.
 */
export function rawVersion(command: string, version?: string): string {
  return `${JSON.stringify({
    command,
    version: version ? `v${version.replace(/^v/, '')}` : undefined,
    ccmKitVersion: `v${appVersion()}`,
    nodeVersion: process.version,
    platform: `${process.platform}/${goArch(process.arch)}`,
  })}\n`;
}

/**
 * The `--version` line: `<command> v<vendor version> (ccm-kit v<ccm-kit version>)`, or
 * `<command> ccm-kit v<ccm-kit version>` when the vendor gives no version.
 */
export function versionLine(command: string, version?: string): string {
  return version
    ? `${command} v${version.replace(/^v/, '')} (ccm-kit v${appVersion()})\n`
    : `${command} ccm-kit v${appVersion()}\n`;
}
