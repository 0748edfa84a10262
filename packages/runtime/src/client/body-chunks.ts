/**
 * Reads a response body without Node's own async iterator of a `Readable`: whole, or chunk by chunk.
 *
 * That iterator asks `finished()` whether the stream is already closed, and for an HTTP/2 stream `closed` means
 * the HTTP/2 stream ended, not that its data was read: from Node 24.20 (and 26.3) a body whose stream the server
 * closed before the first read fails with `ERR_STREAM_PREMATURE_CLOSE` though all of it is buffered (nodejs/node
 * issue 65677). An API answer read a few ticks after it arrived (a busy event loop, many requests in flight) is
 * such a body. This reader takes the stream's own `data`, `end`, `error` and `close` events instead.
 */
import type { Readable } from 'node:stream';

/** Chunks waiting for the consumer beyond which the body is paused (the server's flow control takes over). */
const MAX_QUEUED = 16;

/** The error Node gives a stream closed before its end, for a body that closed without `end` or an error. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** What {@link listen} calls: each chunk, the end, and the stream's error or a close without an end. */
interface BodyEvents {
  data(chunk: Buffer | string): void;
  end(): void;
  fail(error: unknown): void;
}

/**
 * Listens to `body`'s `data`, `end`, `error` and `close` events; a close before the end fails with the stream's
 * error, else `ERR_STREAM_PREMATURE_CLOSE`. @returns a function that removes the listeners.
 */
function listen(body: Readable, on: BodyEvents): () => void {
  let ended = false;
  const onData = (chunk: Buffer | string) => on.data(chunk);
  const onEnd = () => {
    ended = true;
    on.end();
  };
  const onError = (error: unknown) => on.fail(error);
  const onClose = () => {
    if (!ended) on.fail(body.errored ?? prematureClose());
  };
  body.on('data', onData);
  body.on('end', onEnd);
  body.on('error', onError);
  body.on('close', onClose);
  return () => {
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('error', onError);
    body.off('close', onClose);
  };
}

/**
 * The whole of `body` (its chunks joined; strings after `setEncoding` as UTF-8): one listener per event, no promise
 * per chunk.
 * @throws as {@link bodyChunks}: the stream's error, or `ERR_STREAM_PREMATURE_CLOSE` when it closed without an end.
 */
export function readBody(body: Readable): Promise<Buffer> {
  if (body.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (body.destroyed) return Promise.reject(body.errored ?? prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stop = listen(body, {
      data: (chunk) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
      end: () => {
        stop();
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      },
      fail: (error) => {
        stop();
        reject(error);
      },
    });
  });
}

/**
 * The chunks of `body` in order (`Buffer`s, or strings after `setEncoding`), ending when it ends.
 * @throws the stream's error (for a cancelled or timed-out request: the abort reason it was destroyed with), after
 *   the chunks that arrived before it; `ERR_STREAM_PREMATURE_CLOSE` when it closed without an end or an error.
 *   Returning early (a `break`) destroys the body, as Node's iterator does.
 */
export async function* bodyChunks(body: Readable): AsyncGenerator<Buffer | string, void, undefined> {
  if (body.readableEnded) return;
  if (body.destroyed) throw body.errored ?? prematureClose();
  const queue: (Buffer | string)[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const stop = listen(body, {
    data: (chunk) => {
      queue.push(chunk);
      if (queue.length >= MAX_QUEUED) body.pause();
      notify();
    },
    end: () => {
      ended = true;
      notify();
    },
    fail: (error) => {
      failure ??= { error };
      notify();
    },
  });
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        if (queue.length === 0 && body.isPaused() && !ended) body.resume();
        yield chunk;
      } else if (failure) throw failure.error;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stop();
    if (!ended && !failure) body.destroy();
  }
}
