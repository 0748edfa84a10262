/**
 * A TCP proxy in front of the API server that a test can cut and restore, to take one client (an
 * informer) off the network while the API server stays up. TLS passes through untouched.
 */
import * as net from 'node:net';

export interface TcpProxy {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Destroys every proxied connection and refuses new ones. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const t = new URL(target);
  const sockets = new Set<net.Socket>();
  let cut = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = net.connect(Number(t.port), t.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const cutAll = () => {
    cut = true;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    url: `${t.protocol}//127.0.0.1:${port}`,
    cut: cutAll,
    restore() {
      cut = false;
    },
    get accepted() {
      return accepted;
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
