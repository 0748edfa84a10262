/**
 * Runs this repository's `tools/envtest/build.sh`, which builds kube-apiserver, etcd and kubectl
 * from the Go module proxy into the tools/envtest cache (see tools/envtest/README.md).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { toolsEnvtestDir } from './binaries.js';
import { OutputRingBuffer } from './ring-buffer.js';

/** Options of {@link runEnvtestBuild}. */
export interface EnvtestBuildOptions {
  /** Directory holding build.sh (default: this checkout's tools/envtest). */
  toolsDir?: string;
  /** Called with every line build.sh and Go print (progress). */
  onProgress?: (line: string) => void;
  /** Environment of the build (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The Kubernetes minor or release to build (`build.sh <version>`); default the one pinned in tools/envtest/go.mod. */
  kubernetesVersion?: string;
}

/** True when this checkout has tools/envtest/build.sh (false in a published package). */
export function envtestBuildAvailable(toolsDir = toolsEnvtestDir()): boolean {
  return existsSync(join(toolsDir, 'build.sh'));
}

/**
 * Builds (or finds already built) binaries with tools/envtest/build.sh.
 * Concurrent calls from several processes are safe: build.sh holds a lock and the later ones reuse the result.
 * @returns the assets directory holding kube-apiserver, etcd and kubectl.
 * @throws Error when build.sh is missing or fails; the message carries the end of its output.
 */
export async function runEnvtestBuild(options: EnvtestBuildOptions = {}): Promise<string> {
  const toolsDir = options.toolsDir ?? toolsEnvtestDir();
  const script = join(toolsDir, 'build.sh');
  if (!existsSync(script)) throw new Error(`tools/envtest build script not found at ${script}`);
  const tail = new OutputRingBuffer(8 * 1024);
  const args = options.kubernetesVersion ? [script, options.kubernetesVersion] : [script];
  const child = spawn('bash', args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lastStdoutLine = '';
  const done = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.trim() !== '') lastStdoutLine = line.trim();
    tail.push(line + '\n');
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    tail.push(line + '\n');
    options.onProgress?.(line);
  });
  const code = await done;
  if (code !== 0) {
    throw new Error(`${script} failed (exit code ${code}). Last output:\n${tail.toString()}`);
  }
  if (lastStdoutLine === '') throw new Error(`${script} succeeded but did not print the assets directory`);
  return lastStdoutLine;
}
