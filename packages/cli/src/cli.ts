/** Sub-command dispatch of `ccm-kit`. Each command lives in commands/<name>.ts. */
import { BUILD_USAGE, buildCommand } from './commands/build.js';
import { CONFORMANCE_USAGE, conformanceCommand } from './commands/conformance.js';
import { DEV_USAGE, devCommand } from './commands/dev.js';
import { ENVTEST_USAGE, envtestCommand } from './commands/envtest.js';
import { MANIFESTS_USAGE, manifestsCommand } from './commands/manifests.js';
import { UsageError } from './usage-error.js';

interface Command {
  usage: string;
  summary: string;
  run(argv: string[]): Promise<number | void> | number | void;
}

const write = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

const COMMANDS: Record<string, Command> = {
  build: {
    usage: BUILD_USAGE,
    summary: "a production bundle of your provider's main (one ES module and its on-demand chunks, rolldown)",
    run: (argv) => buildCommand(argv, process.cwd(), write),
  },
  conformance: {
    usage: CONFORMANCE_USAGE,
    summary: 'run the provider conformance suite: passed / pending / broke',
    run: (argv) => conformanceCommand(argv, process.cwd(), write),
  },
  dev: {
    usage: DEV_USAGE,
    summary: 'run your provider as a CCM against a local control plane with kubelet-style Nodes; restarts on change',
    run: (argv) => devCommand(argv, process.cwd(), write),
  },
  envtest: {
    usage: ENVTEST_USAGE,
    summary:
      'kube-apiserver, etcd and kubectl for local control planes: yours, else downloaded as setup-envtest does, else built from Go modules',
    run: (argv) => envtestCommand(argv, write),
  },
  manifests: {
    usage: MANIFESTS_USAGE,
    summary: 'RBAC + Deployment/DaemonSet YAML for your provider (same templates as the Helm chart)',
    run: (argv) => manifestsCommand(argv, write),
  },
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'Usage: ccm-kit <command> [options]   (ccm-kit <command> --help for its options)',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

/**
 * Runs `ccm-kit <command> …`.
 * @returns the exit status: 0, 1 when the command failed, 2 for a usage mistake.
 */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    write(help());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`ccm-kit: unknown command "${name}"\n\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    write(command.usage);
    return 0;
  }
  try {
    return (await command.run(rest)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`ccm-kit ${name}: ${(err as Error).message}\n\n${command.usage}\n`);
      return 2;
    }
    process.stderr.write(`ccm-kit ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}
