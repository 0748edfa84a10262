/**
 * The RBAC of a CCM installed in any namespace, from docs/deploy/rbac.yaml (written for kube-system, the
 * one copy the app's least-privilege tests apply): the ServiceAccount and every binding's subject move to
 * the CCM's namespace; the leader-election Role and RoleBinding go to the namespace of the Lease
 * (`--leader-elect-resource-namespace`, upstream default kube-system); the binding to
 * `extension-apiserver-authentication-reader` stays in kube-system, where that Role and the ConfigMap it
 * reads live. Comments are kept, so the chart's templates/rbac.yaml reads like the file (decision 0425).
 */
import { readFileSync } from 'node:fs';
import { isMap, parseAllDocuments, type Document } from 'yaml';
import { assetPath } from '../assets.js';
import type { TemplateSource } from './source.js';
import { CCM_NAME } from './workload.js';

/** The Role and RoleBinding for the leader-election Lease (docs/deploy/rbac.yaml). */
export const LEADER_ELECTION_RBAC = 'system:cloud-controller-manager:leader-election';
/** The kube-system Role that reads the client CA ConfigMap `extension-apiserver-authentication`. */
const AUTHENTICATION_READER = 'extension-apiserver-authentication-reader';
/** The flag naming the Lease's namespace, and its default (upstream's, docs/operations.md). */
const LEASE_NAMESPACE_FLAG = 'leader-elect-resource-namespace';
const LEASE_NAMESPACE_DEFAULT = 'kube-system';

/** The RBAC every deployment needs, as shipped (docs/deploy/rbac.yaml: the CCM in kube-system). */
export function rbacManifest(): string {
  return readFileSync(assetPath('rbac.yaml'), 'utf8');
}

/**
 * The RBAC for the CCM in `t.namespace()`, with the Lease's namespace from `args` (`t.valueOr`).
 * @throws Error when docs/deploy/rbac.yaml holds a namespaced object this function does not place (a new
 *   object there must be given a namespace here).
 */
export function rbacTemplate(t: TemplateSource): string {
  const namespace = t.namespace();
  const leaseNamespace = t.valueOr(`args.${LEASE_NAMESPACE_FLAG}`, LEASE_NAMESPACE_DEFAULT);
  return (parseAllDocuments(rbacManifest()) as Document.Parsed[])
    .map((d) => {
      const kind = String(d.get('kind'));
      const name = String(d.getIn(['metadata', 'name']));
      if (kind === 'ServiceAccount' && name === CCM_NAME) d.setIn(['metadata', 'namespace'], namespace);
      else if (name === LEADER_ELECTION_RBAC) d.setIn(['metadata', 'namespace'], leaseNamespace);
      else if (d.hasIn(['metadata', 'namespace']) && d.getIn(['roleRef', 'name']) !== AUTHENTICATION_READER)
        throw new Error(
          `docs/deploy/rbac.yaml: ${kind} ${name} is namespaced; place it in packages/cli/src/manifests/rbac.ts`,
        );
      const subjects = d.get('subjects');
      if (subjects) {
        for (const s of (subjects as { items: unknown[] }).items) {
          if (isMap(s) && s.get('kind') === 'ServiceAccount' && s.get('name') === CCM_NAME)
            s.set('namespace', namespace);
        }
      }
      return d.toString({ lineWidth: 0, flowCollectionPadding: false });
    })
    .join('');
}
