/**
 * kube-apiserver for a test control plane, following envtest
 * (`pkg/internal/testing/controlplane/apiserver.go`, `auth.go`): its default flags, a serving
 * certificate written as `apiserver.crt`/`apiserver.key` into `--cert-dir`, client-certificate
 * authentication, RBAC, and readiness by `GET /healthz` over HTTPS every 100 ms (200 only after all
 * post-start hooks, including the RBAC bootstrap, have finished).
 */
import { join } from 'node:path';
import { type FlagMap, type FlagOverrides, mergeFlags, renderFlags } from './flags.js';
import { httpGet, waitUntil } from './health.js';
import { ManagedProcess } from './managed-process.js';

/** Files in the kube-apiserver's certificate directory. */
export const API_SERVER_FILES = {
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  saSignerCert: 'sa-signer.crt',
  saSignerKey: 'sa-signer.key',
  clientCa: 'client-cert-auth-ca.crt',
} as const;

/** How to run kube-apiserver. */
export interface ApiServerConfig {
  binary: string;
  /** Directory holding the {@link API_SERVER_FILES}. */
  certDir: string;
  securePort: number;
  etcdUrl: string;
  flags?: FlagOverrides;
  attachOutput?: boolean;
}

/** envtest's default kube-apiserver flags (upstream `controller-runtime pkg/internal/testing/controlplane/apiserver.go`), plus `--advertise-address=127.0.0.1`. */
export function apiServerDefaultFlags(cfg: Pick<ApiServerConfig, 'certDir' | 'securePort' | 'etcdUrl'>): FlagMap {
  const f = API_SERVER_FILES;
  return new Map([
    ['service-cluster-ip-range', ['10.0.0.0/24']],
    ['allow-privileged', ['true']],
    // No default ServiceAccount is created without kube-controller-manager.
    ['disable-admission-plugins', ['ServiceAccount']],
    ['cert-dir', [cfg.certDir]],
    ['authorization-mode', ['RBAC']],
    ['secure-port', [String(cfg.securePort)]],
    ['bind-address', ['127.0.0.1']],
    // With this, kube-apiserver needs no default route (controller-runtime#669).
    ['advertise-address', ['127.0.0.1']],
    ['service-account-issuer', [`https://127.0.0.1:${cfg.securePort}/`]],
    ['service-account-key-file', [join(cfg.certDir, f.saSignerCert)]],
    ['service-account-signing-key-file', [join(cfg.certDir, f.saSignerKey)]],
    ['etcd-servers', [cfg.etcdUrl]],
    ['client-ca-file', [join(cfg.certDir, f.clientCa)]],
  ]);
}

/** The full argument list for kube-apiserver. */
export function apiServerArgs(cfg: ApiServerConfig): string[] {
  return renderFlags(mergeFlags(apiServerDefaultFlags(cfg), cfg.flags));
}

/**
 * Starts kube-apiserver and waits until `/healthz` answers 200 (checked against `caPem`).
 * @throws NotReadyError (from health.ts) with the process output when it exits or misses the deadline.
 */
export async function startApiServer(cfg: ApiServerConfig, caPem: string, deadline: number): Promise<ManagedProcess> {
  const proc = new ManagedProcess({
    name: 'kube-apiserver',
    command: cfg.binary,
    args: apiServerArgs(cfg),
    attachOutput: cfg.attachOutput,
  });
  const url = `https://127.0.0.1:${cfg.securePort}/healthz`;
  try {
    await waitUntil(async () => (await httpGet(url, { ca: caPem }, 2_000)).status === 200, {
      what: `kube-apiserver ${url}`,
      deadline,
      process: proc,
    });
  } catch (err) {
    await proc.stop(5_000);
    throw err;
  }
  return proc;
}
