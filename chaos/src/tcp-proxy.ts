/**
 * A loopback TCP proxy between the CCMs and kube-apiserver that the harness can cut: every open connection
 * (watches included, mid-stream) is destroyed, then new connections are accepted again. TLS passes through.
 */
import * as net from 'node:net';

export interface CuttableProxy {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Destroys every proxied connection; returns how many were open. */
  cut(): number;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: string): Promise<CuttableProxy> {
  const t = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(t.port), t.hostname);
    sockets.add(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    cut() {
      const n = sockets.size;
      for (const s of [...sockets]) s.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [...sockets]) s.destroy();
        server.close(() => resolve());
      }),
  };
}
