export { uniqueName } from './names.js';
export { ignoreNotFound, isGone, TestCluster, type TestClusterOptions } from './test-cluster.js';
