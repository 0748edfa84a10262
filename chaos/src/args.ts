/** The arguments of `npm run chaos` (chaos/run.ts): what to do, or the text to print and how to exit. */
import { parseArgs } from 'node:util';
import type { Profile } from './profiles.ts';

export const CHAOS_USAGE = `Usage: npm run chaos -- [--profile short|long] [--seed N] [--ipam]

One chaos run against real processes (chaos/README.md): prints the seed first and a report last.

  --profile short|long  the profile (default short; long is the release check)
  --seed N              a non-negative integer; reruns a run (default random)
  --ipam                the CCMs also run node-ipam-controller; checks that no Pod CIDR is on two Nodes
                        and that every Node has one once the run settles
  -h, --help            print this text
`;

/** A run to make, the usage asked for (exit 0), or an error to print with the usage (exit 1). */
export type ChaosArgs =
  | { kind: 'run'; profile: Profile['name']; seed: number; ipam: boolean; text?: undefined }
  | { kind: 'help'; text: string }
  | { kind: 'error'; text: string };

/** Parses `argv` (without node and the script). Never throws. */
export function parseChaosArgs(argv: readonly string[], random: () => number = Math.random): ChaosArgs {
  let values: { profile?: string; seed?: string; help?: boolean; ipam?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        profile: { type: 'string' },
        seed: { type: 'string' },
        ipam: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    // node:util's messages name the option: "Unknown option '--sed'. …", "Unexpected argument 'x'. …".
    const first = String((err as Error).message).split('. ')[0]!;
    return { kind: 'error', text: `${first.charAt(0).toLowerCase()}${first.slice(1)}\n\n${CHAOS_USAGE}` };
  }
  if (values.help) return { kind: 'help', text: CHAOS_USAGE };
  const profile = values.profile ?? 'short';
  if (profile !== 'short' && profile !== 'long')
    return { kind: 'error', text: `--profile must be short or long, got ${JSON.stringify(profile)}` };
  const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(random() * 2 ** 31);
  if (values.seed?.trim() === '' || !Number.isInteger(seed) || seed < 0)
    return { kind: 'error', text: `--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}` };
  return { kind: 'run', profile, seed, ipam: values.ipam ?? false };
}
