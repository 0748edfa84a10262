/** Small utilities shared by the ccm-kit controllers. */
export * from './deep-equal.js';
export * from './event-recording.js';
export * from './instance-listing.js';
export * from './node-ownership.js';
export * from './node-reference.js';
