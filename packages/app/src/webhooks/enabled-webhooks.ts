/** Which registered webhooks `--webhooks` enables (upstream `k8s.io/cloud-provider app/webhooks.go`). */
import type { Logger } from '@ccm-kit/runtime';
import { isControllerEnabled } from '../options/controller-selection.js';
import type { WebhookConfig } from './admission.js';

/** The enabled webhooks, logging each decision as upstream (`Webhook "<n>" is disabled` / `Webhook enabled: "<n>"`). */
export function enabledWebhooks(
  webhooks: Readonly<Record<string, WebhookConfig>>,
  selection: readonly string[],
  logger: Logger,
): Record<string, WebhookConfig> {
  const out: Record<string, WebhookConfig> = {};
  for (const [name, config] of Object.entries(webhooks)) {
    if (isControllerEnabled(name, new Set(), selection)) {
      logger.info(`Webhook enabled: ${JSON.stringify(name)}`);
      out[name] = config;
    } else {
      logger.info(`Webhook ${JSON.stringify(name)} is disabled`);
    }
  }
  return out;
}
