/**
 * The API server's answer to one request sent by {@link RestTransport}: status, headers and the body as a
 * Node stream (undici's `Dispatcher.request` answer or a `node:http2` stream, which cost less CPU than `fetch`'s
 * web `Response`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { bodyChunks, readBody } from './body-chunks.js';

/** Response headers by lower-case name; a repeated header's values are joined with `, ` (as `fetch`'s `Headers`). */
export class ResponseHeaders {
  readonly #raw: IncomingHttpHeaders;
  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw;
  }
  /** The value of header `name` (any case), or null. */
  get(name: string): string | null {
    const v = this.#raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }
  /** Calls `fn` for each header (not HTTP/2's `:status`), values of a repeated header joined with `, `. */
  forEach(fn: (value: string, name: string) => void): void {
    for (const [k, v] of Object.entries(this.#raw)) {
      if (v !== undefined && k.charCodeAt(0) !== 58 /* ':' */) fn(Array.isArray(v) ? v.join(', ') : v, k);
    }
  }
}

/** The part of undici's response body this class reads (an HTTP/2 stream has no `dump`). */
interface UndiciBody extends Readable {
  dump?(opts?: { limit?: number }): Promise<void>;
}

/**
 * One HTTP response of a {@link RestTransport}: the status and headers at once, the body as a stream (read it with
 * `text()` or `json()`, or `cancel()` it).
 */
export class TransportResponse {
  /** HTTP status code. */
  readonly status: number;
  /** The response headers, names case-insensitive. */
  readonly headers: ResponseHeaders;
  /** The body, decompressed when the server sent it gzip-encoded; an async iterable of `Buffer`s. */
  readonly body: Readable;
  readonly #raw: UndiciBody;

  constructor(status: number, headers: IncomingHttpHeaders, body: Readable) {
    this.status = status;
    this.headers = new ResponseHeaders(headers);
    this.#raw = body as UndiciBody;
    const encoding = headers['content-encoding'];
    // The raw body is read by `bodyChunks`, not piped (see there: Node's own reader can fail an HTTP/2 body the
    // server already closed); destroying the gunzip stream returns the reader, which destroys the raw body.
    this.body = encoding === 'gzip' ? pipeline(bodyChunks(body), createGunzip(), () => undefined) : body;
  }

  /** The whole body as UTF-8 text. @throws the abort reason when the request was cancelled or timed out. */
  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  /** The body parsed as JSON. @throws SyntaxError for a body that is not JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  /** The whole body as bytes. @throws the abort reason when the request was cancelled or timed out. */
  async bytes(): Promise<Buffer> {
    return readBody(this.body);
  }

  /**
   * Discards the body: undici's reads a small remainder so the connection can be reused, else closes the stream; an
   * HTTP/2 stream is reset (the connection stays).
   */
  async cancel(): Promise<void> {
    if (this.body !== this.#raw) this.body.destroy();
    if (this.#raw.dump) await this.#raw.dump().catch(() => undefined);
    else this.#raw.destroy();
  }
}
