/**
 * One HTTP request before it is sent: the part of client-node's `RequestContext` that authentication,
 * per-call middleware (`setHeaderOptions`, `patchOptions`) and {@link RestTransport.send} use, without
 * loading client-node's generated HTTP layer.
 */
import type { Dispatcher } from 'undici';

/** What {@link RestTransport.send} reads from a request (client-node's `RequestContext` satisfies it). */
export interface TransportRequest {
  /** The absolute URL, with its query. */
  getUrl(): string;
  /** The HTTP method (`GET`, `PATCH`, …). */
  getHttpMethod(): { toString(): string };
  /** The request headers, by name. */
  getHeaders(): Record<string, string>;
  /** Sets one header. */
  setHeaderParam(key: string, value: string): void;
  /** The body: a string (JSON), or `undefined` for none. */
  getBody(): unknown;
  /** The caller's abort signal, if any. */
  getSignal(): AbortSignal | undefined;
  /** A dispatcher set by authentication (client certificates); used when the transport has none of its own. */
  getDispatcher(): Dispatcher | undefined;
}

export class RawRequest implements TransportRequest {
  /** The URL without its query; kept as a string so that no request parses a URL (they add up). */
  #base: string;
  #query: URLSearchParams | undefined;
  readonly #method: string;
  readonly #headers: Record<string, string> = {};
  #body: string | undefined;
  #signal: AbortSignal | undefined;
  #dispatcher: Dispatcher | undefined;

  /** @param url an absolute URL whose path segments are already percent-encoded. */
  constructor(url: string, method: string) {
    this.#base = url;
    this.#method = method;
    this.setUrl(url);
  }

  getUrl(): string {
    const q = this.#query?.toString();
    return q ? `${this.#base}?${q}` : this.#base;
  }
  setUrl(url: string): void {
    const i = url.indexOf('?');
    this.#base = i < 0 ? url : url.slice(0, i);
    this.#query = i < 0 ? undefined : new URLSearchParams(url.slice(i + 1));
  }
  setQueryParam(name: string, value: string): void {
    (this.#query ??= new URLSearchParams()).set(name, value);
  }
  getHttpMethod(): string {
    return this.#method;
  }
  getHeaders(): Record<string, string> {
    return this.#headers;
  }
  setHeaderParam(key: string, value: string): void {
    this.#headers[key] = value;
  }
  getBody(): string | undefined {
    return this.#body;
  }
  setBody(body: string): void {
    this.#body = body;
  }
  getSignal(): AbortSignal | undefined {
    return this.#signal;
  }
  setSignal(signal: AbortSignal): void {
    this.#signal = signal;
  }
  getDispatcher(): Dispatcher | undefined {
    return this.#dispatcher;
  }
  setDispatcher(dispatcher: Dispatcher): void {
    this.#dispatcher = dispatcher;
  }
}
