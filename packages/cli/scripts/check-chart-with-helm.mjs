// Renders the Helm chart (renderHelmChart) with a real helm for several sets of values and checks that every
// object equals what renderManifests gives for the same values (decision 0071). Needs helm on PATH (or
// HELM=/path/to/helm) and `npx tsc -b`: node packages/cli/scripts/check-chart-with-helm.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
const m = await import('../dist/index.js');
const helm = process.env.HELM ?? 'helm';
const variants = {
  default: (v) => v,
  daemonset: (v) => ({ ...v, kind: 'DaemonSet', nodeSelector: { 'node-role.kubernetes.io/control-plane': '' }, priorityClassName: 'system-node-critical' }),
  hostnet: (v) => ({ ...v, hostNetwork: true, replicaCount: 3, namespace: 'ccm' }),
  monitoring: (v) => ({ ...v, monitoring: { enabled: true, podMonitor: true } }),
  args: (v) => ({ ...v, args: { ...v.args, 'allow-untagged-cloud': '', 'cluster-name': 'prod' }, env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 't' } } }] }),
};
const chartDir = mkdtempSync(join(tmpdir(), 'ccm-kit-chart-'));
const base = m.defaultManifestValues('acme');
for (const [f, c] of Object.entries(m.renderHelmChart(base))) { mkdirSync(dirname(`${chartDir}/${f}`), { recursive: true }); writeFileSync(`${chartDir}/${f}`, c); }
const objs = (t) => parseAllDocuments(t).map((d) => d.toJS()).filter(Boolean).sort((a, b) => (a.kind + a.metadata.name).localeCompare(b.kind + b.metadata.name));
for (const [name, fn] of Object.entries(variants)) {
  const values = fn(structuredClone(base));
  writeFileSync(join(chartDir, 'test-values.yaml'), stringify(values));
  const out = execFileSync(helm, ['template', 't', chartDir, '-f', join(chartDir, 'test-values.yaml')], { encoding: 'utf8' });
  const a = objs(out), b = objs(m.renderManifests(values));
  const same = isDeepStrictEqual(a, b);
  console.log(`${same ? 'same' : 'DIFFERENT'}: ${name} (${a.length} objects from helm, ${b.length} from ccm-kit manifests)`);
  if (!same) process.exitCode = 1;
}
rmSync(chartDir, { recursive: true, force: true });
