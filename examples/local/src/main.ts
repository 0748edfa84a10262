#!/usr/bin/env node
// The provider's binary: register, then hand over to ccm-kit's cloud-controller-manager.
// Nodes of another provider (a foreign providerID prefix) are left alone by every controller.
import { enableCompileCache } from 'node:module';

// Node's compile cache (docs/operations.md, "Start-up"); it must run before the modules below load.
enableCompileCache();
const { runCloudControllerManager } = await import('@ccm-kit/app');
const { isLocalNode } = await import('./instances.js');
const { register } = await import('./provider.js');

// The shutdown hook drains open connections (drainTimeout, default 5 s): give it room, well within a Pod's
// default 30 s termination grace period.
register();
await runCloudControllerManager({
  controllerOptions: { nodeOwnership: isLocalNode },
  providerShutdownTimeoutMs: 15_000,
});
