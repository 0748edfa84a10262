/**
 * The README.md of the Helm chart `renderHelmChart` writes: how to install it, where its objects go, and
 * its values (the fields of `ManifestValues`).
 */
import type { ManifestValues } from './values.js';

/** The chart's README for `values` (its defaults are the ones shown). */
export function chartReadme(values: ManifestValues): string {
  const p = values.providerName;
  const token = values.env.find((e) => e.valueFrom?.secretKeyRef);
  const tokenRef = token?.valueFrom?.secretKeyRef;
  return `# ${p}-cloud-controller-manager

The ${p} Kubernetes cloud-controller-manager, built with ccm-kit.

\`\`\`sh
kubectl -n kube-system create secret generic ${values.cloudConfigSecret} --from-file=cloud.yaml=/path/to/cloud.yaml
${
  tokenRef
    ? `kubectl -n kube-system create secret generic ${tokenRef.name} --from-literal=${tokenRef.key}="$API_TOKEN"
`
    : ''
}helm install ${p}-ccm ./chart -n kube-system --set image.tag=${values.image.tag}
\`\`\`

${
  token && tokenRef
    ? `## Cloud credentials

The CCM reads its cloud API token from the environment variable \`${token.name}\`, which the chart fills from key
\`${tokenRef.key}\` of the Secret \`${tokenRef.name}\` (in the release namespace; the reference is optional, so
without the Secret the CCM starts and the provider reports the missing token). Keep the token out of
\`cloud.yaml\` and out of values files. To use another Secret or more variables, set \`env\`.

`
    : ''
}## Namespace

Everything of the CCM goes to the release namespace (\`-n\`): the ServiceAccount, the Deployment or DaemonSet,
the metrics Service and PodMonitor, and the Secrets it reads (\`cloudConfigSecret\`, \`env\`) must be there.
kube-system is the usual place; another namespace (\`helm install -n cloud-system --create-namespace …\`)
works the same, and every RBAC subject names the ServiceAccount in it. Two objects stay in other namespaces:

- the RoleBinding to \`extension-apiserver-authentication-reader\`, in kube-system, where that Role and the
  ConfigMap with the client CA live;
- the leader-election Role and RoleBinding, in the Lease's namespace: \`args.leader-elect-resource-namespace\`,
  kube-system when unset (upstream's default). Set it to the release namespace to keep the Lease there too.

With \`--use-service-account-credentials\`, the controllers' ServiceAccounts are in kube-system whatever the
release namespace; see rbac-service-account-credentials.yaml in ccm-kit's docs/deploy.

## Values

| value | default | what |
| --- | --- | --- |
| \`providerName\` | \`${p}\` | \`--cloud-provider\` |
| \`kind\` | \`${values.kind}\` | \`Deployment\` (replicas with leader election) or \`DaemonSet\` (control-plane Nodes) |
| \`replicaCount\` | \`${values.replicaCount}\` | replicas of the Deployment |
| \`image.repository\`, \`image.tag\`, \`image.pullPolicy\` | \`${values.image.repository}\`, \`${values.image.tag}\`, \`${values.image.pullPolicy}\` | the image |
| \`args\` | see values.yaml | CCM flags as \`name: value\` (\`--name=value\`; \`""\` for a bare \`--name\`) |
| \`env\` | ${token && tokenRef ? `\`${token.name}\` from Secret \`${tokenRef.name}\`, key \`${tokenRef.key}\`` : '`[]`'} | environment variables of the CCM: the cloud API token from a Secret (\`valueFrom.secretKeyRef\`) |
| \`cloudConfigSecret\` | \`${values.cloudConfigSecret}\` | Secret with \`cloud.yaml\`, mounted at \`/etc/${p}\` (optional) |
| \`resources\`, \`tolerations\`, \`nodeSelector\`, \`priorityClassName\` | see values.yaml | the Pod's |
| \`hostNetwork\` | \`${values.hostNetwork}\` | the Node's network (dnsPolicy \`Default\`); the namespace must allow Pod Security "privileged" |
| \`monitoring.enabled\`, \`monitoring.podMonitor\` | \`${values.monitoring.enabled}\`, \`${values.monitoring.podMonitor}\` | a metrics Service; a Prometheus Operator PodMonitor |

The Pods pass Pod Security "restricted" unless \`hostNetwork\` is on. Without Helm, \`npx ccm-kit manifests
--namespace <ns>\` renders what \`helm template -n <ns>\` does, from the same templates.
`;
}
