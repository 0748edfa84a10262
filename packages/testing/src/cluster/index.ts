export { uniqueName } from './names.js';
export { ignoreNotFound, TestCluster, type TestClusterOptions } from './test-cluster.js';
