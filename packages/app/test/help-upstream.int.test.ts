/**
 * `--help` of a ccm-kit binary against the upstream Go cloud-controller-manager's, flag by flag: the Go CCM is
 * built as `npm run bench:compare` builds it (bench/upstream-ccm/build.sh: k8s.io/cloud-provider at go.mod's
 * version with the fakebench provider, cached under ~/.cache/ccm-kit/bench), and both pages are read as pflag
 * prints them (names, shorthands, types, usage texts, defaults, sections and their order). Flags only ccm-kit has
 * are listed below as extensions; anything else that differs fails.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './ccm-harness.js';
import { type HelpFlag, parseHelp } from './help-sections.js';

const run = promisify(execFile);

/** Flags ccm-kit adds (docs/decisions): none of them exists upstream, each defaults to upstream's behaviour. */
const CCM_KIT_FLAGS = new Set([
  'cloud-api-qps',
  'cloud-api-burst',
  'host-update-window',
  'lb-gc-mode',
  'lb-gc-grace-period',
  'lb-gc-period',
  'out-of-service-taint-after',
  'service-status-conditions',
  // node-ipam-controller's: upstream's sample CCM adds them (cmd/cloud-controller-manager/nodeipamcontroller.go),
  // the bare k8s.io/cloud-provider command built here does not.
  'service-cluster-ip-range',
  'node-cidr-mask-size',
  'node-cidr-mask-size-ipv4',
  'node-cidr-mask-size-ipv6',
]);
/** Controllers ccm-kit adds, listed under `--controllers` next to upstream's. */
const CCM_KIT_CONTROLLERS = new Set(['service-lb-gc-controller', 'node-ipam-controller']);
/**
 * Feature gates ccm-kit lists under `--feature-gates` beyond upstream's `AllAlpha`/`AllBeta`: the three gates
 * upstream registers and accepts but its help does not list (docs/decisions/0009).
 */
const LISTED_GATES = [
  'CloudControllerManagerWatchBasedRoutesReconciliation=true|false (ALPHA - default=false)',
  'CloudControllerManagerWebhook=true|false (ALPHA - default=false)',
  'ControllerManagerReleaseLeaderElectionLockOnExit=true|false (ALPHA - default=false)',
];

let upstream: string;
let ours: string;

beforeAll(async () => {
  const build = await run('bash', [join(repoRoot, 'bench/upstream-ccm/build.sh')], { maxBuffer: 1 << 24 });
  const binary = build.stdout.trim().split('\n').at(-1)!;
  upstream = (await run(binary, ['--help'])).stdout;
  ours = (await run(process.execPath, [join(repoRoot, 'examples/minimal/dist/main.js'), '--help'])).stdout;
}, 900_000);

/** A controller list line (`All controllers: a, b`) without ccm-kit's controllers. */
const withoutOurControllers = (usage: string) =>
  usage.replace(
    /^((?:All|Disabled-by-default) controllers: )(.*)$/gm,
    (_m, head: string, names: string) =>
      head +
      names
        .split(', ')
        .filter((n) => n !== '' && !CCM_KIT_CONTROLLERS.has(n))
        .join(', '),
  );

/** The fields compared, with ccm-kit's documented additions to two usage texts removed. */
function comparable(f: HelpFlag): Omit<HelpFlag, 'name'> {
  let usage = f.usage;
  if (f.name === 'controllers') usage = withoutOurControllers(usage);
  if (f.name === 'feature-gates')
    usage = usage
      .split('\n')
      .filter((l) => !LISTED_GATES.includes(l))
      .join('\n');
  return { section: f.section, shorthand: f.shorthand, type: f.type, usage, default: f.default };
}

describe('--help matches the upstream cloud-controller-manager', () => {
  it('starts with the same description and usage line', () => {
    const head = (page: string) => page.slice(0, page.indexOf(' flags:'));
    expect(head(ours).split('\n').slice(0, -1)).toEqual(head(upstream).split('\n').slice(0, -1));
  });

  it('has every upstream flag with the same section, type, text and default', () => {
    const up = parseHelp(upstream);
    const ts = parseHelp(ours);
    expect(up.size).toBeGreaterThan(80);
    const differences: string[] = [];
    for (const [name, u] of up) {
      const t = ts.get(name);
      if (!t) differences.push(`--${name} is missing`);
      else {
        const [a, b] = [comparable(u), comparable(t)];
        for (const k of Object.keys(a) as (keyof typeof a)[]) {
          if (a[k] !== b[k])
            differences.push(`--${name} ${k}: upstream ${JSON.stringify(a[k])}, ccm-kit ${JSON.stringify(b[k])}`);
        }
      }
    }
    expect(differences).toEqual([]);
  });

  it('adds only the flags listed as ccm-kit extensions', () => {
    const up = parseHelp(upstream);
    const extra = [...parseHelp(ours).keys()].filter((n) => !up.has(n) && !CCM_KIT_FLAGS.has(n));
    expect(extra).toEqual([]);
  });

  it('lists the controllers ccm-kit runs and the gates it accepts', () => {
    const controllers = parseHelp(ours).get('controllers')!.usage;
    expect(controllers).toContain(
      'All controllers: cloud-node-controller, cloud-node-lifecycle-controller, node-ipam-controller, node-route-controller, service-lb-controller',
    );
    expect(controllers).toMatch(/\nDisabled-by-default controllers: node-ipam-controller, service-lb-gc-controller/);
    for (const gate of LISTED_GATES) expect(parseHelp(ours).get('feature-gates')!.usage).toContain(gate);
  });

  it('prints the sections in upstream order', () => {
    const sections = (page: string) => [...page.matchAll(/^(\S.*) flags:$/gm)].map((m) => m[1]);
    const up = sections(upstream);
    expect(sections(ours).filter((s) => up.includes(s))).toEqual(up);
  });
});
