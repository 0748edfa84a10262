/**
 * One HTTP/2 connection to the API server over `node:http2` directly, the way client-go's `http2.Transport` holds
 * one connection per server (golang.org/x/net/http2 `transport.go`): connected on first use and again after the
 * server sent GOAWAY or the connection failed; a PING every 30 s, the connection closed when it is not answered
 * within 15 s (client-go's `ReadIdleTimeout` and `PingTimeout`, k8s.io/apimachinery `pkg/util/net/http.go`
 * `readIdleTimeoutSeconds`/`pingTimeoutSeconds`); closed after `idleTimeoutMs` without a stream (`IdleConnTimeout`);
 * unreferenced while no stream is open, so an idle connection does not keep the process alive. The flow-control
 * windows are Go's HTTP/2 client's (4 MiB per stream, 1 GiB per connection; decision 0430).
 */
import * as http2 from 'node:http2';
import type { SecureClientSessionOptions } from 'node:http2';
import { untilAborted } from '../wait/until-aborted.js';

/** TLS settings of the connection, from the kubeconfig. */
export interface Http2TlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** Settings of {@link Http2Connection}; times in milliseconds. */
export interface Http2ConnectionOptions {
  /** `https://host:port` of the server. */
  origin: string;
  tls: Http2TlsOptions;
  /** Closes the connection after this long without an open stream (client-go's `IdleConnTimeout`, 90 000). */
  idleTimeoutMs: number;
  /** Called once per connection the server accepted (TCP connect and TLS handshake done). */
  onConnect: () => void;
}

/** Every this long a PING (client-go's `ReadIdleTimeout`, 30 s). */
const PING_INTERVAL_MS = 30_000;
/** A PING not answered within this closes the connection (client-go's `PingTimeout`, 15 s). */
const PING_TIMEOUT_MS = 15_000;
/** Go's HTTP/2 client windows (golang.org/x/net/http2 `transport.go` transportDefaultStreamFlow, transportDefaultConnFlow). */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;

const noop = (): void => undefined;

/** Reads an unrequested stream to its end and ignores its errors. */
function dropUnrequested(stream: http2.ClientHttp2Stream): void {
  stream.on('error', noop);
  stream.resume();
}
const withBody = { endStream: false } as const;
const withoutBody = { endStream: true } as const;

/** The error a stream open on a connection that closed or got GOAWAY before answering is rejected with. */
export class Http2ClosedError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'Http2ClosedError';
    this.code = code;
  }
}

/** One connected session and the streams open on it. */
export class OpenSession {
  readonly http2: http2.ClientHttp2Session;
  active = 0;
  idleSince = performance.now();
  readonly #onStreamClose = (): void => {
    if (--this.active === 0) {
      this.idleSince = performance.now();
      this.http2.unref();
    }
  };

  constructor(session: http2.ClientHttp2Session) {
    this.http2 = session;
  }

  /** True while new streams may be opened on it. */
  get usable(): boolean {
    return !this.http2.closed && !this.http2.destroyed;
  }

  request(headers: http2.OutgoingHttpHeaders, body: string | undefined): http2.ClientHttp2Stream {
    const stream = this.http2.request(headers, body === undefined ? withoutBody : withBody);
    if (body !== undefined) stream.end(body);
    stream.on('error', noop);
    if (this.active++ === 0) this.http2.ref();
    stream.once('close', this.#onStreamClose);
    return stream;
  }
}

/** See the module notes. */
export class Http2Connection {
  readonly #opts: Http2ConnectionOptions;
  readonly #connectOpts: SecureClientSessionOptions;
  /** The connected session requests go to; undefined before the first connect and after it ended. */
  #session: OpenSession | undefined;
  #connecting: Promise<OpenSession> | undefined;
  #pinger: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: Http2ConnectionOptions) {
    this.#opts = opts;
    this.#connectOpts = {
      ...opts.tls,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
    };
  }

  /**
   * The connected session (open a stream with its `request(headers, body)`: pseudo-headers `:method` and `:path`
   * included, the stream never emits an unhandled `error`; read it or destroy it), or undefined when
   * {@link connect} must be awaited first.
   */
  current(): OpenSession | undefined {
    const s = this.#session;
    return s?.usable ? s : undefined;
  }

  /**
   * Connects (or waits for the connect under way).
   * @throws the socket or TLS error (`code` `ECONNREFUSED`, …) when the connect fails; `signal`'s reason when it
   *   aborts first; Error when closed.
   */
  connect(signal: AbortSignal | undefined): Promise<OpenSession> {
    if (this.#closed) return Promise.reject(new Error('RestTransport: closed'));
    // A connect that fails after the waiter gave up is observed there, never reported as unhandled.
    return untilAborted((this.#connecting ??= this.#open()), signal);
  }

  /** Destroys the connection; open streams fail (a body being read rejects). Idempotent. */
  close(): void {
    this.#closed = true;
    const s = this.#session;
    this.#forget(s);
    s?.http2.destroy(new Http2ClosedError('RestTransport: closed', 'ECONNABORTED'));
  }

  #open(): Promise<OpenSession> {
    return new Promise((resolve, reject) => {
      const session = http2.connect(this.#opts.origin, this.#connectOpts);
      session.on('error', noop);
      // An answer to a stream already reset (an aborted request whose reset the busy connection had not yet
      // written) comes as a stream the session does not know: Node emits it as 'stream'
      // (`onSessionHeaders`, lib/internal/http2/core.js). Nobody waits for it: read it to its end and drop it, so
      // destroying the session cannot raise an 'error' on it that no one listens to.
      session.on('stream', dropUnrequested);
      const failed = (err: Error) => {
        this.#connecting = undefined;
        session.destroy();
        reject(err);
      };
      const closedEarly = () => failed(new Http2ClosedError('HTTP/2 connection closed while connecting', 'ECONNRESET'));
      session.once('error', failed);
      session.once('close', closedEarly);
      session.once('connect', () => {
        session.off('close', closedEarly);
        session.off('error', failed);
        this.#connecting = undefined;
        if (this.#closed) {
          session.destroy();
          reject(new Error('RestTransport: closed'));
          return;
        }
        const s = new OpenSession(session);
        this.#session = s;
        session.setLocalWindowSize(CONNECTION_WINDOW);
        try {
          (session.socket as unknown as { setKeepAlive?: (on: boolean, ms: number) => void }).setKeepAlive?.(
            true,
            30_000,
          );
        } catch {
          // not every socket allows it; the PING covers a dead peer
        }
        session.unref();
        const end = () => this.#forget(s);
        session.once('goaway', end);
        session.once('close', end);
        session.once('error', end);
        this.#startPings(s);
        this.#opts.onConnect();
        resolve(s);
      });
    });
  }

  /** Stops sending requests to `s` (it got GOAWAY, failed or closed); the next request connects anew. */
  #forget(s: OpenSession | undefined): void {
    if (!s || s !== this.#session) return;
    this.#session = undefined;
    clearInterval(this.#pinger);
    this.#pinger = undefined;
  }

  #startPings(s: OpenSession): void {
    clearInterval(this.#pinger);
    this.#pinger = setInterval(() => {
      if (s !== this.#session) return;
      if (s.active === 0 && performance.now() - s.idleSince >= this.#opts.idleTimeoutMs) {
        this.#forget(s);
        s.http2.close();
        return;
      }
      const timeout = setTimeout(() => {
        this.#forget(s);
        s.http2.destroy(new Http2ClosedError('HTTP/2 PING not answered within 15 s', 'ETIMEDOUT'));
      }, PING_TIMEOUT_MS).unref();
      try {
        s.http2.ping(() => clearTimeout(timeout));
      } catch {
        clearTimeout(timeout);
      }
    }, PING_INTERVAL_MS).unref();
  }
}

/**
 * Resolves with `stream`'s response headers (`:status` included).
 * @throws the stream's error (the abort reason when it was destroyed with one); {@link Http2ClosedError} when it
 *   closed without a response (reset by the server, or the connection ended).
 */
export function responseOf(
  stream: http2.ClientHttp2Stream,
): Promise<http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader> {
  return new Promise((resolve, reject) => {
    let answered = false;
    stream.once('response', (headers) => {
      answered = true;
      resolve(headers);
    });
    stream.once('error', reject);
    stream.once('close', () => {
      // The usual close comes after the answer; only one without an answer is an error (and builds one).
      if (!answered)
        reject(new Http2ClosedError(`HTTP/2 stream closed without a response (code ${stream.rstCode})`, 'ECONNRESET'));
    });
  });
}
