#!/usr/bin/env node
// The provider's binary: register, then hand over to ccm-kit's cloud-controller-manager.
import { enableCompileCache } from 'node:module';

// Node's compile cache (docs/operations.md, "Start-up"): modules imported below are compiled once and
// read from the cache on later starts. It must run before they load, hence the dynamic imports.
enableCompileCache();
const { runCloudControllerManager } = await import('@ccm-kit/app');
const { register } = await import('./provider.js');

register();
await runCloudControllerManager();
