#!/usr/bin/env node
// rancher-cloud-controller-manager on ccm-kit (the original's main.go): register the provider, then run the
// cloud-controller-manager, which parses the flags (--help, --version, an unknown flag: usage or exit 1) and
// calls initCloudProvider('rancher', --cloud-config) before it starts the controllers.
import { enableCompileCache } from 'node:module';

// Node's compile cache (docs/operations.md, "Start-up"); it must run before the modules below load.
enableCompileCache();
const { runCloudControllerManager } = await import('@ccm-kit/app');
const { register } = await import('./provider/cloud.js');

register();
await runCloudControllerManager({
  commandName: 'rancher-cloud-controller-manager',
  defaults: { 'cloud-provider': 'rancher' },
});
