#!/usr/bin/env node
// The provider's binary: register, then hand over to ccm-kit's cloud-controller-manager.
import { runCloudControllerManager } from '@ccm-kit/app';
import { register } from './provider.js';

register();
await runCloudControllerManager();
