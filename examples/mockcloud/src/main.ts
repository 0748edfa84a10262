#!/usr/bin/env node
// The provider's binary: register the provider, then hand over to ccm-kit's cloud-controller-manager
// with the vendor controller added (enable it with --controllers=*,mockcloud-tagger-controller).
import { enableCompileCache } from 'node:module';

// Node's compile cache (docs/operations.md, "Start-up"); it must run before the modules below load.
enableCompileCache();
const { runCloudControllerManager } = await import('@ccm-kit/app');
const { register } = await import('./provider/cloud.js');
const { taggerController } = await import('./tagger/descriptor.js');

register();
await runCloudControllerManager({
  commandName: 'mockcloud-cloud-controller-manager',
  controllers: [taggerController],
  // What most vendors force (flags on the command line still win): their own provider, and no lookup of
  // the extension-apiserver-authentication ConfigMap, which would need extra RBAC.
  defaults: { 'cloud-provider': 'mockcloud', 'authentication-skip-lookup': true },
});
