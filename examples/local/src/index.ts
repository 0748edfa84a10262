/**
 * The `local` example provider of ccm-kit: a fully local cloud (machines from an inventory file,
 * load-balancer addresses from pools, real TCP proxies on loopback). See README.md.
 */
export * from './allocation-store.js';
export * from './annotations.js';
export * from './config.js';
export * from './duration.js';
export * from './instances.js';
export * from './inventory.js';
export * from './inventory-watcher.js';
export * from './ip.js';
export * from './ipam.js';
export * from './load-balancer.js';
export * from './provider.js';
export * from './proxy/data-plane.js';
export * from './proxy/health.js';
export * from './proxy/service-proxy.js';
export * from './proxy/tcp-proxy.js';
