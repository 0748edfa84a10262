#!/usr/bin/env node
// A vendor binary embedding ccm-kit's cloud controllers (src/operator.ts): its own flags, its own signals.
// The flags are read before the controllers are loaded, so --help and a flag mistake answer at once.
import { parseArgs } from 'node:util';

const USAGE = `Usage: embedded-operator [--kubeconfig <file>] [--cloud-config <file>] [--controllers a,b] [--identity <id>]

  --kubeconfig <file>     the cluster (default: in-cluster, else $KUBECONFIG or ~/.kube/config)
  --cloud-config <file>   the provider's configuration file
  --controllers <a,b>     the controllers to run (default: every one enabled by default)
  --identity <id>         this process's identity in the leader-election Lease (default: <hostname>_<random UUID>)
  -h, --help              this text`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      'cloud-config': { type: 'string' },
      controllers: { type: 'string' },
      identity: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  // parseArgs names the flag: "Unknown option '--bogus'…", "Option '--kubeconfig <value>' argument missing".
  process.stderr.write(`embedded-operator: ${(err as Error).message}\n\n${USAGE}\n`);
  process.exit(1);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const { loadKubeConfig } = await import('@ccm-kit/runtime/client');
const { runEmbeddedControllers } = await import('./operator.js');
const { PROVIDER_NAME, register } = await import('./provider.js');
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
