/**
 * Where a cloud client's credential (a bearer token, an API key) comes from: a fixed string, or a file re-read
 * on a TTL so a rotated Secret takes effect without a restart (Linode's `LINODE_API_TOKEN_FILE` pattern). The
 * cloud-call guard asks for it before every attempt and, after an `auth` failure (401/403), invalidates it and
 * retries once at once when the file holds a new value. Credentials never appear in logs or error messages
 * (errors name the file, never its content).
 */
import { readFile } from 'node:fs/promises';

/** Supplies a credential. */
export interface CredentialProvider {
  /** The current credential. @throws Error when it cannot be read or is empty. */
  credential(): Promise<string>;
  /** Forgets any cached value, so the next {@link CredentialProvider.credential} reads it again (after a 401). */
  invalidate(): void;
}

/**
 * A credential that never changes.
 * @param what - what it is, for error messages (default `API token`).
 * @throws Error when `value` is empty.
 */
export function staticCredential(value: string, what = 'API token'): CredentialProvider {
  const trimmed = value.trim();
  if (!trimmed) throw new Error(`the ${what} is empty`);
  return { credential: async () => trimmed, invalidate: () => {} };
}

/** Options of {@link fileCredential}. */
export interface FileCredentialOptions {
  /** How long a read value is used before the file is read again, in ms; default 60000. */
  ttlMs?: number;
  /** The clock, in epoch ms; default `Date.now`. */
  now?: () => number;
}

/**
 * A credential read from a file (surrounding whitespace trimmed), cached for `ttlMs`; a mounted Secret that
 * kubelet updates is picked up within `ttlMs`, or at once after an auth failure.
 * `credential()` throws an Error naming the file when it is missing or empty.
 */
export function fileCredential(path: string, options: FileCredentialOptions = {}): CredentialProvider {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  let cached: { value: string; at: number } | undefined;
  return {
    async credential() {
      if (cached && now() - cached.at < ttlMs) return cached.value;
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        throw new Error(`cannot read the credential file ${path}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      const value = text.trim();
      if (!value) throw new Error(`the credential file ${path} is empty`);
      cached = { value, at: now() };
      return value;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
