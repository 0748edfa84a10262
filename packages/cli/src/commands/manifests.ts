/**
 * `ccm-kit manifests`: prints RBAC and the workload for a provider, rendered from the same templates as
 * the Helm chart (manifests/workload.ts).
 */
import { parseArgs } from 'node:util';
import { renderManifests, renderRbac, renderWorkload } from '../manifests/render.js';
import { DEFAULT_NAMESPACE } from '../manifests/source.js';
import { defaultManifestValues, type ManifestValues } from '../manifests/values.js';
import { readProjectPackage } from '../project-package.js';
import { UsageError } from '../usage-error.js';

export const MANIFESTS_USAGE = `ccm-kit manifests [--provider <name>] [options]

  --provider <name>        the name registered with registerCloudProvider (--cloud-provider)
                           (default: package.json "ccmKit.provider")
  --image <repo:tag>       the CCM image (default registry.example.com/<name>/cloud-controller-manager:v0.1.0)
  --kind <kind>            Deployment (default; 2 replicas, leader election) or DaemonSet (control-plane Nodes)
  --replicas <n>           replicas of the Deployment (default 2)
  --namespace <ns>         the CCM's namespace (default kube-system), as "helm install -n <ns>" of the chart;
                           the leader-election Role follows --arg leader-elect-resource-namespace=<ns>
  --arg <name=value>       a CCM flag, repeatable (e.g. --arg v=4 --arg cluster-name=prod)
  --host-network           run in the Node's network (dnsPolicy Default); needs a "privileged" namespace
  --rbac-only | --no-rbac  only the RBAC, or only the workload`;

/**
 * Parses `ccm-kit manifests` flags into chart values; `--provider` defaults to `ccmKit.provider` of the
 * package.json in `cwd`, as `ccm-kit dev`. @throws UsageError naming the bad flag.
 */
export function manifestValuesFromArgs(
  argv: string[],
  cwd = process.cwd(),
): { values: ManifestValues; namespace: string; rbac: 'only' | 'no' | 'with' } {
  const { values: o } = parseArgs({
    args: argv,
    options: {
      provider: { type: 'string' },
      image: { type: 'string' },
      kind: { type: 'string', default: 'Deployment' },
      replicas: { type: 'string' },
      namespace: { type: 'string' },
      arg: { type: 'string', multiple: true, default: [] },
      'host-network': { type: 'boolean', default: false },
      'rbac-only': { type: 'boolean', default: false },
      'no-rbac': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const provider = o.provider ?? readProjectPackage(cwd).ccmKit?.provider;
  if (!provider)
    throw new UsageError('--provider: not given and package.json has no "ccmKit.provider" (e.g. --provider mycloud)');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(provider))
    throw new UsageError(
      `--provider: "${provider}" is not a provider name: lower-case letters, digits and "-" (e.g. mycloud)`,
    );
  if (o.kind !== 'Deployment' && o.kind !== 'DaemonSet')
    throw new UsageError(`--kind: "${o.kind}" is not Deployment or DaemonSet`);
  const values = defaultManifestValues(provider, o.kind);
  if (o.image) {
    const at = o.image.lastIndexOf(':');
    if (at <= 0 || o.image.slice(at).includes('/'))
      throw new UsageError(`--image: "${o.image}" has no tag; give repository:tag`);
    values.image = { ...values.image, repository: o.image.slice(0, at), tag: o.image.slice(at + 1) };
  }
  if (o.replicas !== undefined) {
    const n = Number(o.replicas);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--replicas: "${o.replicas}" is not a whole number ≥ 1`);
    values.replicaCount = n;
  }
  const namespace = o.namespace ?? DEFAULT_NAMESPACE;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63)
    throw new UsageError(
      `--namespace: "${namespace}" is not a namespace name (lower-case letters, digits and "-", at most 63)`,
    );
  for (const a of o.arg) {
    const m = /^-{0,2}([a-z0-9][-a-z0-9]*)(?:=(.*))?$/.exec(a);
    if (!m) throw new UsageError(`--arg: "${a}" is not name=value`);
    values.args[m[1]!] = m[2] ?? '';
  }
  values.hostNetwork = o['host-network'];
  if (o['rbac-only'] && o['no-rbac']) throw new UsageError('--rbac-only and --no-rbac exclude each other');
  return { values, namespace, rbac: o['rbac-only'] ? 'only' : o['no-rbac'] ? 'no' : 'with' };
}

/** Runs the command: the YAML goes to stdout. */
export function manifestsCommand(argv: string[], out: (text: string) => void, cwd = process.cwd()): void {
  const { values, namespace, rbac } = manifestValuesFromArgs(argv, cwd);
  const render = rbac === 'only' ? renderRbac : rbac === 'no' ? renderWorkload : renderManifests;
  out(render(values, namespace));
}
