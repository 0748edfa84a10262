/**
 * `mockcloud://<server id>` providerIDs.
 */
import { isValidID } from '../client/ids.js';
import { PROVIDER_ID_PREFIX } from './names.js';

/** The providerID of a server. */
export function providerIDFor(serverID: string): string {
  return PROVIDER_ID_PREFIX + serverID;
}

/**
 * The server ID in a mockcloud providerID, or `undefined` when the providerID belongs to another provider.
 * @throws Error for `mockcloud://` with an empty or malformed ID.
 */
export function serverIDFromProviderID(providerID: string): string | undefined {
  if (!providerID.startsWith(PROVIDER_ID_PREFIX)) return undefined;
  const id = providerID.slice(PROVIDER_ID_PREFIX.length);
  if (!isValidID(id)) throw new Error(`malformed mockcloud providerID "${providerID}"`);
  return id;
}
