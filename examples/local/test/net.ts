/** Loopback HTTP helpers of the local provider's tests. */
import { type Agent, get as httpGet } from 'node:http';
import { createServer } from 'node:net';

/** A port free on `ip` now. */
export async function freePort(ip: string): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, ip, r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** GET http://ip:port/ on a new connection (unless `agent` is given); resolves the body. */
export function get(ip: string, port: number, opts: { localAddress?: string; agent?: Agent } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpGet(
      {
        host: ip,
        port,
        path: '/',
        agent: opts.agent ?? false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        timeout: 5_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve(body));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timeout')));
    req.on('error', reject);
  });
}
