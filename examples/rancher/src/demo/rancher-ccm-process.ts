/**
 * The example's binary (dist/main.js) as a child process, configured the way the original was deployed: the
 * Cattle endpoint in `CATTLE_URL`, `CATTLE_ACCESS_KEY` and `CATTLE_SECRET_KEY`. Used by the demo and by the
 * integration test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CattleEndpoint } from '../cattle/client.js';

/** dist/main.js, from src/demo (tests) as from dist/demo (the demo). */
export const RANCHER_CCM_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A running rancher-cloud-controller-manager. */
export interface RancherCcmProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`, default 10 000). */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts the binary against the API server of `kubeconfigPath` and the Cattle API of `cattle`, without leader
 * election, serving, or routes; `args` are added to (and, being later, win over) those flags.
 */
export function startRancherCcm(options: {
  kubeconfigPath: string;
  cattle: CattleEndpoint;
  args?: readonly string[];
}): RancherCcmProcess {
  const child = spawn(
    process.execPath,
    [
      RANCHER_CCM_MAIN,
      `--kubeconfig=${options.kubeconfigPath}`,
      '--leader-elect=false',
      '--secure-port=0',
      '--configure-cloud-routes=false',
      '--node-monitor-period=1s',
      ...(options.args ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CATTLE_URL: options.cattle.url,
        CATTLE_ACCESS_KEY: options.cattle.accessKey,
        CATTLE_SECRET_KEY: options.cattle.secretKey,
      },
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
