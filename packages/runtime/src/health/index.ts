export * from './health-checks.js';
