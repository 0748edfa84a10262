/**
 * `@ccm-kit/runtime/informers`: shared informers, listers, the indexed store and the list/watch layer (client-go
 * `tools/cache`, `informers`). Public API, covered by semver.
 */
export {
  type ResourceInformerOptions,
  type SharedInformerFactoryOptions,
  SharedInformerFactory,
  type ListFnParams,
  type ListFnResult,
} from './factory.js';
export { metaNamespaceKey, splitMetaNamespaceKey, type ObjectWithMeta } from './keys.js';
export {
  restListerWatcher,
  type ListPage,
  type ListRequest,
  type WatchRequest,
  type WatchEvent,
  type ListerWatcher,
  type RestListerWatcherOptions,
} from './list-watch.js';
export {
  stripManagedFields,
  identityTransform,
  type TransformFunc,
  stripManagedFieldsAndNodeImages,
} from './normalize.js';
export { type SharedInformerOptions, SharedInformer } from './shared-informer.js';
export { metaNamespaceIndexFunc, type IndexFunc, namespaceIndex, type IndexedLister, Store } from './store.js';
export { isTombstone, objectOfDelete } from './tombstone.js';
export { waitForCacheSync } from './wait.js';
export { type ReconnectBackoffOptions } from './backoff.js';
