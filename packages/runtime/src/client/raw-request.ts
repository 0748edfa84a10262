/**
 * One HTTP request before it is sent: the part of client-node's `RequestContext` that authentication,
 * per-call middleware (`setHeaderOptions`, `patchOptions`) and {@link RestTransport.send} use, without
 * loading client-node's generated HTTP layer.
 */
import type { Dispatcher } from 'undici';

/** What {@link RestTransport.send} reads from a request (client-node's `RequestContext` satisfies it). */
export interface TransportRequest {
  getUrl(): string;
  getHttpMethod(): { toString(): string };
  getHeaders(): Record<string, string>;
  setHeaderParam(key: string, value: string): void;
  getBody(): unknown;
  getSignal(): AbortSignal | undefined;
  getDispatcher(): Dispatcher | undefined;
}

export class RawRequest implements TransportRequest {
  #url: URL;
  readonly #method: string;
  readonly #headers: Record<string, string> = {};
  #body: string | undefined;
  #signal: AbortSignal | undefined;
  #dispatcher: Dispatcher | undefined;

  constructor(url: string, method: string) {
    this.#url = new URL(url);
    this.#method = method;
  }

  getUrl(): string {
    return this.#url.toString();
  }
  setUrl(url: string): void {
    this.#url = new URL(url);
  }
  setQueryParam(name: string, value: string): void {
    this.#url.searchParams.set(name, value);
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
