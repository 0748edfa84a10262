#!/usr/bin/env node
// A vendor binary embedding ccm-kit's cloud controllers (src/operator.ts): its own flags, its own signals.
// Usage: embedded-operator --kubeconfig <file> --cloud-config <file> [--controllers a,b] [--identity <id>]
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '@ccm-kit/runtime/client';
import { runEmbeddedControllers } from './operator.js';
import { PROVIDER_NAME, register } from './provider.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'cloud-config': { type: 'string' },
    controllers: { type: 'string' },
    identity: { type: 'string' },
  },
});

register();
const stop = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());
try {
  await runEmbeddedControllers({
    provider: { name: PROVIDER_NAME, ...(values['cloud-config'] ? { configFile: values['cloud-config'] } : {}) },
    kubeConfig: loadKubeConfig({ ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}) }),
    ...(values.controllers ? { controllers: values.controllers.split(',') } : {}),
    ...(values.identity ? { lease: { identity: values.identity } } : {}),
    signal: stop.signal,
  });
  process.exit(0);
} catch (err) {
  process.stderr.write(`Error: ${(err as Error).message}\n`);
  process.exit(1);
}
