/**
 * HTTP/2 answers to requests the client has already reset. When a request is aborted (a controller stopping, a
 * timeout), undici resets its stream and forgets it; if the server's answer is already on its way, and the reset
 * could not be written at once (the connection busy writing other frames, as when many writes are aborted
 * together), Node's HTTP/2 session meets the answer's HEADERS for a stream it no longer knows and makes a new
 * `ClientHttp2Stream` for it (`onSessionHeaders` in Node's `lib/internal/http2/core.js`). Nobody listens to
 * that stream: its unread body keeps it open, and when the transport closes, undici destroys the session with
 * its `ClientDestroyedError`, which the session hands to every open stream; on this one it is an `'error'` event
 * without a listener, an uncaught exception that ends the process.
 *
 * The request's caller has already had its answer (the abort), so such a stream carries nothing anyone waits
 * for: on the transport's own connections it is read to its end and dropped, and an error on it is ignored.
 * Node announces it on the `http2.client.stream.created` diagnostics channel, with the answer's headers (a
 * request the client makes is announced with the request's headers instead).
 */
import diagnostics from 'node:diagnostics_channel';
import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';

/** Marks the sockets of the transport's own connections; read through the session's socket proxy. */
const ownConnection = Symbol('ccm-kit.transport-connection');

let subscribed = false;

function onStreamCreated(message: unknown): void {
  const { stream, headers } = message as { stream: ClientHttp2Stream; headers?: IncomingHttpHeaders };
  if (headers?.[':status'] === undefined) return; // a request this client made
  let own = false;
  try {
    own = (stream.session?.socket as unknown as Record<symbol, unknown> | undefined)?.[ownConnection] === true;
  } catch {
    // the session has no socket any more
  }
  if (!own) return;
  stream.on('error', () => {});
  stream.resume();
}

/**
 * Marks `socket` as one of the transport's connections, whose HTTP/2 streams for answers to reset requests are
 * read and dropped (see the module notes).
 */
export function adoptUnrequestedStreams(socket: object): void {
  (socket as Record<symbol, unknown>)[ownConnection] = true;
  if (subscribed) return;
  subscribed = true;
  diagnostics.subscribe('http2.client.stream.created', onStreamCreated);
}
