/**
 * Kubeconfigs for control-plane users: client-certificate credentials against the test
 * kube-apiserver, as a file (for kubectl and child processes) and as a client-node `KubeConfig`.
 */
import { promises as fs } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/** What a kubeconfig for one user contains. */
export interface KubeconfigSpec {
  /** `https://127.0.0.1:<port>` */
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  /** User (and context) name. */
  userName: string;
  /** Cluster name (default `envtest`). */
  clusterName?: string;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** The kubeconfig YAML text for one user, with inline (base64) certificate data. */
export function kubeconfigYaml(spec: KubeconfigSpec): string {
  const cluster = spec.clusterName ?? 'envtest';
  const context = `${spec.userName}@${cluster}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caPem) } }],
    users: [
      {
        name: spec.userName,
        user: { 'client-certificate-data': b64(spec.certPem), 'client-key-data': b64(spec.keyPem) },
      },
    ],
    contexts: [{ name: context, context: { cluster, user: spec.userName } }],
    'current-context': context,
  });
}

/** A client-node KubeConfig for one user (loaded from the same YAML as the file). */
export function kubeConfigFor(spec: KubeconfigSpec): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(spec));
  return kc;
}

/** Writes the kubeconfig file with mode 0600. */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<void> {
  await fs.writeFile(path, kubeconfigYaml(spec), { mode: 0o600 });
}
