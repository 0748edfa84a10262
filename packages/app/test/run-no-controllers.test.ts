/**
 * The binary with nothing to run (every controller disabled, no leader election, no secure port) keeps running
 * until SIGTERM, as upstream's command waits on its context; with no timer or socket left, Node used to end the
 * process with exit 13 ("Detected unsettled top-level await").
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, startProcess } from './ccm-harness.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-no-controllers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it.each(['--controllers=', '--controllers=-cloud-node,-cloud-node-lifecycle,-service,-route'])(
  'with %s, --leader-elect=false and --secure-port=0 it runs until SIGTERM, then exits 0',
  async (controllers) => {
    // Nothing contacts the API server: a kubeconfig naming a closed loopback port will do.
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:9" } }]',
        'users: [{ name: u, user: { token: t } }]',
        'contexts: [{ name: c, context: { cluster: c, user: u } }]',
        'current-context: c',
      ].join('\n'),
    );
    const cloudConfig = join(dir, 'cloud.yaml');
    await writeFile(cloudConfig, 'machines: []\n');
    const proc = startProcess(join(repoRoot, 'examples/minimal/dist/main.js'), [
      '--cloud-provider=minimal',
      `--cloud-config=${cloudConfig}`,
      `--kubeconfig=${kubeconfig}`,
      controllers,
      '--leader-elect=false',
      '--secure-port=0',
    ]);
    try {
      const early = await Promise.race([proc.exited, sleep(3_000, 'running' as const)]);
      expect({ early, output: early === 'running' ? '' : proc.output() }).toEqual({ early: 'running', output: '' });
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('Stopped cloud-controller-manager');
    } finally {
      proc.child.kill('SIGKILL');
    }
  },
  30_000,
);
