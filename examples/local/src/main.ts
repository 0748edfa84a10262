#!/usr/bin/env node
// The provider's binary: register, then hand over to ccm-kit's cloud-controller-manager.
// Nodes of another provider (a foreign providerID prefix) are left alone by every controller.
import { runCloudControllerManager } from '@ccm-kit/app';
import { isLocalNode } from './instances.js';
import { register } from './provider.js';

register();
await runCloudControllerManager({ controllerOptions: { nodeOwnership: isLocalNode } });
