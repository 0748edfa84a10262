/** bodyChunks and readBody: a response body read by its events, including an HTTP/2 body the server closed before the read. */
import { once } from 'node:events';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bodyChunks, readBody } from '../src/client/body-chunks.js';

async function collect(body: Readable): Promise<string> {
  let text = '';
  for await (const c of bodyChunks(body)) text += String(c);
  return text;
}

describe('bodyChunks and readBody', () => {
  let server: http2.Http2Server;
  let session: http2.ClientHttp2Session;
  beforeEach(async () => {
    server = http2.createServer();
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('{"kind":"Status"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterEach(async () => {
    session.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** An answer's stream, a few turns of the event loop after it arrived: the HTTP/2 stream has ended. */
  async function lateBody(): Promise<http2.ClientHttp2Stream> {
    const req = session.request({ ':path': '/' });
    req.end();
    await once(req, 'response');
    await tick();
    await tick();
    expect(req.closed).toBe(true);
    return req;
  }

  it('reads an HTTP/2 body whose stream the server closed before the first read', async () => {
    for (let i = 0; i < 5; i++) expect(await collect(await lateBody())).toBe('{"kind":"Status"}');
    expect((await readBody(await lateBody())).toString()).toBe('{"kind":"Status"}');
  });

  it('readBody: the whole body, the stream’s error, a premature close', async () => {
    const many = new PassThrough();
    many.write('a');
    many.write('b');
    setTimeout(() => many.end('c'), 5);
    expect((await readBody(many)).toString()).toBe('abc');
    expect((await readBody(many)).length).toBe(0);
    const failing = new PassThrough();
    failing.write('a');
    const boom = new Error('timed out');
    setTimeout(() => failing.destroy(boom), 5);
    await expect(readBody(failing)).rejects.toBe(boom);
    await expect(readBody(failing)).rejects.toBe(boom);
    const cut = new PassThrough();
    setTimeout(() => cut.destroy(), 5);
    await expect(readBody(cut)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const text = new PassThrough();
    text.setEncoding('utf8');
    text.end('é');
    expect((await readBody(text)).toString()).toBe('é');
  });

  it('gives the chunks that came before an error, then the error', async () => {
    const body = new PassThrough();
    body.write('a');
    body.write('b');
    const boom = new Error('timed out');
    setTimeout(() => body.destroy(boom), 5);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of bodyChunks(body)) seen.push(String(c));
      })(),
    ).rejects.toBe(boom);
    expect(seen).toEqual(['a', 'b']);
  });

  it('fails a body destroyed without an error or an end as a premature close', async () => {
    const body = new PassThrough();
    body.write('a');
    setTimeout(() => body.destroy(), 5);
    await expect(collect(body)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    await expect(collect(body)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('ends at once for a body already read, and destroys a body the reader leaves early', async () => {
    const done = Readable.from(['x']);
    expect(await collect(done)).toBe('x');
    expect(await collect(done)).toBe('');
    const body = new PassThrough();
    body.write('first');
    for await (const c of bodyChunks(body)) {
      expect(String(c)).toBe('first');
      break;
    }
    expect(body.destroyed).toBe(true);
  });

  it('pauses a body the reader does not keep up with, and resumes it once the queue is read', async () => {
    const body = new PassThrough({ highWaterMark: 4 });
    for (let i = 0; i < 40; i++) body.write(`${i},`);
    body.end();
    const reader = bodyChunks(body);
    const first = await reader.next();
    expect(first.value).toBeDefined();
    await tick();
    expect(body.isPaused()).toBe(true);
    let text = String(first.value);
    for await (const c of reader) text += String(c);
    expect(text).toBe(Array.from({ length: 40 }, (_, i) => `${i},`).join(''));
  });
});
