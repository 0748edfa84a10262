/**
 * Where the client's API token comes from: a fixed string, or a file re-read on a TTL so a rotated
 * Secret takes effect without a restart (Linode's pattern). Tokens are never logged.
 */
import { readFile } from 'node:fs/promises';

/** Supplies the bearer token. */
export interface TokenSource {
  /** The current token. @throws Error when it cannot be read or is empty. */
  token(): Promise<string>;
  /** Forgets any cached token, so the next {@link TokenSource.token} reads it again (called after a 401). */
  invalidate(): void;
}

/** A token that never changes. @throws Error when `token` is empty. */
export function staticToken(token: string): TokenSource {
  if (!token.trim()) throw new Error('mockcloud: the API token is empty');
  const value = token.trim();
  return { token: async () => value, invalidate: () => {} };
}

/** Options of {@link fileToken}. */
export interface FileTokenOptions {
  /** How long a read token is used before the file is read again, in ms; default 60000. */
  ttlMs?: number;
  /** The clock, in epoch ms; default `Date.now`. */
  now?: () => number;
}

/**
 * A token read from a file (surrounding whitespace trimmed), cached for `ttlMs`.
 * `token()` throws an Error naming the file when it is missing or empty.
 */
export function fileToken(path: string, options: FileTokenOptions = {}): TokenSource {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  let cached: { value: string; at: number } | undefined;
  return {
    async token() {
      if (cached && now() - cached.at < ttlMs) return cached.value;
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        throw new Error(`mockcloud: cannot read the token file ${path}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      const value = text.trim();
      if (!value) throw new Error(`mockcloud: the token file ${path} is empty`);
      cached = { value, at: now() };
      return value;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
