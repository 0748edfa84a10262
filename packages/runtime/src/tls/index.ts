export * from './tiny-ca.js';
