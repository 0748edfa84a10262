/**
 * `setLogStreams` as k8s.io/component-base's split-stream and info-buffer options: a child process logs and
 * the test reads its stdout and stderr separately.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const logging = new URL('../dist/logging.js', import.meta.url).href;

/** Runs `body` in a child with `createLogger`, `setLogStreams` and `flushLogs` in scope; returns its streams. */
async function child(body: string): Promise<{ stdout: string; stderr: string }> {
  const script = `import { createLogger, setLogStreams, flushLogs } from ${JSON.stringify(logging)};\nconst log = createLogger('t');\n${body}`;
  return run(process.execPath, ['--input-type=module', '-e', script]);
}

describe('log streams', () => {
  it('writes every line to stderr by default', async () => {
    const { stdout, stderr } = await child(`log.info('hello'); log.error(new Error('boom'), 'failed');`);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^I.*"hello"/m);
    expect(stderr).toMatch(/^E.*"failed" err="boom"/m);
  });

  it('splits info to stdout and errors to stderr', async () => {
    const { stdout, stderr } = await child(
      `setLogStreams({ splitStream: true, infoBufferSize: 0 }); log.info('hello'); log.warn('careful'); log.error(new Error('boom'), 'failed');`,
    );
    expect(stdout).toMatch(/^I.*"hello".*\nW.*"careful".*\n$/);
    expect(stderr).toMatch(/^E.*"failed" err="boom".*\n$/);
  });

  it('holds info lines until the buffer fills, an error comes, flushLogs or exit', async () => {
    const { stdout } = await child(
      `setLogStreams({ splitStream: true, infoBufferSize: 1 << 20, flushFrequencyMs: 60_000 });
       log.info('one');
       setTimeout(() => { log.info('two'); }, 10);`,
    );
    // Both lines arrive, written out at exit.
    expect(stdout).toMatch(/"one".*\n.*"two".*\n$/);
    const small = await child(
      `setLogStreams({ splitStream: true, infoBufferSize: 1 << 20, flushFrequencyMs: 60_000 });
       const write = process.stdout.write.bind(process.stdout);
       let writes = 0;
       process.stdout.write = (chunk) => { writes++; return write(chunk); };
       log.info('a'); log.info('b');
       const before = writes;
       flushLogs();
       process.stderr.write(JSON.stringify({ before, after: writes }));`,
    );
    expect(JSON.parse(small.stderr)).toEqual({ before: 0, after: 1 });
    expect(small.stdout).toMatch(/"a".*\n.*"b".*\n$/);
  });

  it('writes a full buffer at once', async () => {
    const { stderr } = await child(
      `setLogStreams({ splitStream: true, infoBufferSize: 200, flushFrequencyMs: 60_000 });
       const write = process.stdout.write.bind(process.stdout);
       const sizes = [];
       process.stdout.write = (chunk) => { sizes.push(Buffer.byteLength(chunk)); return write(chunk); };
       for (let i = 0; i < 6; i++) log.info('line ' + i);
       process.stderr.write(JSON.stringify(sizes));
       process.exitCode = 0;`,
    );
    const sizes = JSON.parse(stderr.slice(0, stderr.indexOf(']') + 1)) as number[];
    expect(sizes.length).toBeGreaterThan(0);
    for (const s of sizes) expect(s).toBeGreaterThanOrEqual(200);
  });
});
