/**
 * Stand-ins for the Pods behind a Service: one small HTTP server per Node, listening on the Node's
 * InternalIP and the Service's nodePort — where kube-proxy would accept traffic on a real Node.
 */
import { createServer, type Server } from 'node:http';

/** A running backend. */
export interface Backend {
  readonly node: string;
  readonly address: string;
  readonly port: number;
  /** Requests served so far. */
  served: number;
  close(): Promise<void>;
}

/** Starts a backend answering `hello from <node>` on `address:port`. */
export async function startBackend(node: string, address: string, port: number): Promise<Backend> {
  const backend: Backend = {
    node,
    address,
    port,
    served: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((_req, res) => {
    backend.served++;
    res.writeHead(200, { 'Content-Type': 'text/plain', Connection: 'close' });
    res.end(`hello from ${node}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  return backend;
}
