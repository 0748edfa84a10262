/**
 * The provider's configuration: the Cattle API's URL and keys, from the environment (`CATTLE_URL`,
 * `CATTLE_ACCESS_KEY`, `CATTLE_SECRET_KEY`, as the original's `newRancherCloud`) or from the `--cloud-config`
 * file in the gcfg form its `configGlobal` struct declares:
 *
 * ```ini
 * [Global]
 * cattle-url = http://rancher:8080/v2-beta
 * cattle-access-key = 0A1B2C3D
 * cattle-secret-key = …
 * ```
 *
 * A variable that is set wins over the file's key. The secret key never appears in an error or a log line:
 * log {@link describeEndpoint} instead of the endpoint.
 */
import { parse } from 'ini';
import type { CattleEndpoint } from '../cattle/client.js';

const KEYS = {
  'cattle-url': { env: 'CATTLE_URL', field: 'url' },
  'cattle-access-key': { env: 'CATTLE_ACCESS_KEY', field: 'accessKey' },
  'cattle-secret-key': { env: 'CATTLE_SECRET_KEY', field: 'secretKey' },
} as const;

/**
 * The Cattle endpoint from the cloud-config text (may be absent) and the environment.
 * @throws Error listing every problem: an unknown section or key, a missing value (naming the variable and the
 *   key that would give it), a URL that is not `http(s)://`.
 */
export function readRancherConfig(
  cloudConfig: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): CattleEndpoint {
  const problems: string[] = [];
  const fromFile: Record<string, string> = {};
  if (cloudConfig !== undefined && cloudConfig.trim() !== '') {
    for (const [section, value] of Object.entries(parse(cloudConfig))) {
      if (section !== 'Global' || typeof value !== 'object' || value === null) {
        problems.push(`cloud-config: unknown section or key "${section}" (the keys go under [Global])`);
        continue;
      }
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        if (key in KEYS && typeof v === 'string') fromFile[key] = v.trim();
        else problems.push(`cloud-config: unknown key "${key}" in [Global] (known: ${Object.keys(KEYS).join(', ')})`);
      }
    }
  }
  const endpoint: CattleEndpoint = { url: '', accessKey: '', secretKey: '' };
  for (const [key, { env: variable, field }] of Object.entries(KEYS)) {
    const value = env[variable]?.trim() || fromFile[key];
    if (value) endpoint[field] = value;
    else problems.push(`${variable} is not set (or set ${key} under [Global] in the cloud-config file)`);
  }
  if (endpoint.url && !/^https?:\/\//.test(endpoint.url)) {
    problems.push(`the Cattle URL must start with http:// or https:// (got ${JSON.stringify(endpoint.url)})`);
  }
  if (problems.length > 0) throw new Error(`rancher: ${problems.join('; ')}`);
  return endpoint;
}

/** What may be logged of an endpoint: the URL and the access key, never the secret. */
export function describeEndpoint(endpoint: CattleEndpoint): { url: string; accessKey: string } {
  return { url: endpoint.url, accessKey: endpoint.accessKey };
}
