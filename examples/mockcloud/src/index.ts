/**
 * The mockcloud example provider: a vendor-style ccm-kit provider against a REST cloud API.
 * `register()` makes it available as `--cloud-provider=mockcloud`; `taggerController` is its extra controller.
 * The API server and the client are also exported under `./api-server` and `./client`.
 */
export * from './provider/annotations.js';
export * from './provider/cloud.js';
export * from './provider/config.js';
export * from './provider/instances.js';
export * from './provider/load-balancer.js';
export * from './provider/load-balancer-spec.js';
export * from './provider/names.js';
export * from './provider/provider-id.js';
export * from './provider/routes.js';
export * from './provider/server-cache.js';
export * from './tagger/controller.js';
export * from './tagger/descriptor.js';
export * from './tagger/plan.js';
