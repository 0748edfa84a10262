/**
 * etcd for a test control plane, following envtest (`pkg/internal/testing/controlplane/etcd.go`):
 * client and peer URLs on 127.0.0.1, a data directory of its own, `--unsafe-no-fsync=true`
 * (passed always, not probed from `--help`, so Debian's etcd 3.4 gets it too), readiness by
 * `GET /health` every 100 ms.
 */
import { type FlagMap, type FlagOverrides, mergeFlags, renderFlags } from './flags.js';
import { httpGet, waitUntil } from './health.js';
import { ManagedProcess } from './managed-process.js';

/** How to run etcd. */
export interface EtcdConfig {
  binary: string;
  dataDir: string;
  clientPort: number;
  peerPort: number;
  flags?: FlagOverrides;
  attachOutput?: boolean;
}

/** etcd's default flags for the given ports and data directory. */
export function etcdDefaultFlags(cfg: Pick<EtcdConfig, 'dataDir' | 'clientPort' | 'peerPort'>): FlagMap {
  const client = `http://127.0.0.1:${cfg.clientPort}`;
  const peer = `http://127.0.0.1:${cfg.peerPort}`;
  return new Map([
    ['data-dir', [cfg.dataDir]],
    ['listen-client-urls', [client]],
    ['advertise-client-urls', [client]],
    ['listen-peer-urls', [peer]],
    ['initial-advertise-peer-urls', [peer]],
    ['initial-cluster', [`default=${peer}`]],
    ['unsafe-no-fsync', ['true']],
  ]);
}

/** Starts etcd and waits until `/health` reports healthy. */
export async function startEtcd(cfg: EtcdConfig, deadline: number): Promise<ManagedProcess> {
  const args = renderFlags(mergeFlags(etcdDefaultFlags(cfg), cfg.flags));
  const proc = new ManagedProcess({
    name: 'etcd',
    command: cfg.binary,
    args,
    attachOutput: cfg.attachOutput,
  });
  const url = `http://127.0.0.1:${cfg.clientPort}/health`;
  try {
    await waitUntil(
      async () => {
        const r = await httpGet(url, {}, 1_000);
        return r.status === 200 && /"health"\s*:\s*"true"/.test(r.body);
      },
      { what: `etcd ${url}`, deadline, process: proc },
    );
  } catch (err) {
    await proc.stop(5_000);
    throw err;
  }
  return proc;
}
