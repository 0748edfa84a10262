/**
 * A vendor admission webhook called by a real kube-apiserver configured the standard way: an
 * `--admission-control-config-file` whose `WebhookAdmissionConfiguration` kubeconfig gives the webhook a bearer
 * token. The API server sends that token with every call; the webhook server, like upstream's
 * (`k8s.io/cloud-provider app/webhooks.go`), has no authentication filter and answers.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { AdmissionregistrationV1Api, CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, expect, it } from 'vitest';
import { startCloudControllerManager, type WebhookConfig } from '../src/index.js';
import { freePort, webhookOnlyArgs } from './ccm-harness.js';

const NS = 'webhook-token';
const dir = mkdtempSync(join(tmpdir(), 'ccm-webhook-apiserver-'));
const webhookKubeconfig = join(dir, 'webhook-kubeconfig.yaml');
writeFileSync(
  webhookKubeconfig,
  [
    'apiVersion: v1',
    'kind: Config',
    'users:',
    "  - name: '*'", // every webhook: the API server sends this token to each one
    '    user: { token: webhook-bearer-token }',
  ].join('\n'),
);
const admissionConfig = join(dir, 'admission.yaml');
writeFileSync(
  admissionConfig,
  [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '  - name: ValidatingAdmissionWebhook',
    '    configuration:',
    '      apiVersion: apiserver.config.k8s.io/v1',
    '      kind: WebhookAdmissionConfiguration',
    `      kubeConfigFile: ${webhookKubeconfig}`,
  ].join('\n'),
);
const controlPlane = useControlPlane({ apiServerFlags: { 'admission-control-config-file': admissionConfig } });
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const denyUntagged: WebhookConfig = {
  path: '/validate',
  admissionHandler: (req) => {
    const labels = (req.object as V1Service | undefined)?.metadata?.labels ?? {};
    return labels.team
      ? { allowed: true }
      : { allowed: false, status: { code: 403, message: 'every Service needs a team label' } };
  },
};

it('a kube-apiserver whose admission kubeconfig holds a token gets the webhook answers', async () => {
  const cp = controlPlane();
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  const port = await freePort();
  const certDir = join(dir, 'certs');
  const ccm = await startCloudControllerManager({
    argv: [...webhookOnlyArgs(port), `--webhook-cert-dir=${certDir}`],
    cloud: new FakeCloud(),
    kubeConfig: cp.kubeConfig,
    webhooks: { 'deny-untagged': denyUntagged },
  });
  try {
    // The generated certificate is self-signed: it is its own CA bundle.
    const caBundle = Buffer.from(await readFile(join(certDir, 'cloud-controller-manager-webhook.crt'))).toString(
      'base64',
    );
    await cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'deny-untagged' },
        webhooks: [
          {
            name: 'deny-untagged.ccm-kit.test',
            clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['services'] }],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
          },
        ],
      },
    });
    const service = (name: string, labels: Record<string, string>): V1Service => ({
      metadata: { name, labels },
      spec: { ports: [{ port: 80 }] },
    });
    // The API server picks the configuration up within a moment; until then Services pass unchecked.
    let n = 0;
    const refusal = await eventuallyValue(
      async () => {
        try {
          await core.createNamespacedService({ namespace: NS, body: service(`untagged-${n++}`, {}) });
          return undefined;
        } catch (err) {
          return String((err as { body?: unknown }).body ?? err);
        }
      },
      { what: 'the webhook to refuse an untagged Service', timeoutMs: 30_000 },
    );
    expect(refusal).toContain('every Service needs a team label');
    expect(refusal).not.toContain('Unauthorized');
    const tagged = await core.createNamespacedService({ namespace: NS, body: service('tagged', { team: 'a' }) });
    expect(tagged.metadata?.uid).toBeTruthy();
  } finally {
    await ccm.stop();
  }
}, 120_000);
