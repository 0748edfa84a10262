#!/usr/bin/env node
/**
 * `mockcloud-api`: runs the in-memory mockcloud API server for demos and manual testing (flags: USAGE below).
 * Prints the API URL on stdout and runs until SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import type { ApiToken } from './server.js';
import { MockCloudApiServer } from './server.js';
import type { ServerSeed } from './state.js';

function int(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`mockcloud-api: --${name} must be a non-negative integer, got "${value}"`);
  return n;
}

const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '0' },
  token: { type: 'string', multiple: true },
  'read-only-token': { type: 'string', multiple: true },
  'admin-token': { type: 'string' },
  'provisioning-delay-ms': { type: 'string' },
  'latency-ms': { type: 'string' },
  seed: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `Usage: mockcloud-api [--host 127.0.0.1] [--port 0] [--token T]... [--read-only-token T]... [--admin-token T]
                     [--provisioning-delay-ms 3000] [--latency-ms 0] [--seed servers.yaml]

Runs the in-memory mockcloud API server; prints its URL and runs until SIGINT/SIGTERM.
  --host, --port              where to listen (default 127.0.0.1, a free port)
  --token, --read-only-token  API tokens (repeatable; also MOCKCLOUD_API_TOKENS, comma-separated); one at least
  --admin-token               the token of the admin endpoints
  --provisioning-delay-ms     how long a new load balancer stays provisioning
  --latency-ms                added to every answer
  --seed <file>               YAML: servers: [{ name: node-a, zone: zone-1, ... }]
  -h, --help                  this text`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ options: OPTIONS });
  } catch (err) {
    // parseArgs names the flag ("Unknown option '--x'…").
    process.stderr.write(`mockcloud-api: ${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(1);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const tokens: ApiToken[] = [
    ...(values.token ?? []),
    ...(process.env.MOCKCLOUD_API_TOKENS ?? '').split(',').filter(Boolean),
  ].map((token) => ({ token }));
  tokens.push(...(values['read-only-token'] ?? []).map((token) => ({ token, readOnly: true })));
  if (tokens.length === 0) throw new Error('mockcloud-api: give at least one --token (or MOCKCLOUD_API_TOKENS)');
  let servers: ServerSeed[] = [];
  if (values.seed) {
    const doc = (parse(readFileSync(values.seed, 'utf8')) ?? {}) as { servers?: ServerSeed[] };
    if (doc.servers !== undefined && !Array.isArray(doc.servers)) {
      throw new Error(`mockcloud-api: ${values.seed}: "servers" must be a list`);
    }
    servers = doc.servers ?? [];
  }
  const server = await MockCloudApiServer.start({
    host: values.host,
    port: int('port', values.port),
    tokens,
    adminToken: values['admin-token'],
    provisioningDelayMs: int('provisioning-delay-ms', values['provisioning-delay-ms']),
    latencyMs: int('latency-ms', values['latency-ms']),
    servers,
  });
  process.stdout.write(`${server.url}\n`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
