/**
 * The cloud-controller-manager's flag sets, with upstream's names, defaults and help text
 * (k8s.io/cloud-provider `options`, k8s.io/controller-manager `options`, component-base). Each option group
 * (one module per group, as upstream's `options/*.go`) adds its flags to the help sections here; durations
 * are held in milliseconds.
 */
import type { FlagSet } from '../flags/flag-set.js';
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { type HelpNames, NamedFlagSets } from './option-group.js';
import { OPTION_GROUPS } from './option-groups.js';

export { ACCEPTED_NO_OP_FEATURE_GATES, ALPHA_FEATURE_GATES, KNOWN_FEATURE_GATES } from './feature-gates.js';

/**
 * The help sections, in upstream's order (the order k8s.io/cloud-provider `CloudControllerManagerOptions.Flags`
 * creates them: debugging and leader-migration come from the generic options' `AddFlags`; leader election
 * sits in `generic`).
 */
const SECTIONS = [
  'debugging',
  'leader-migration',
  'generic',
  'cloud-node-controller',
  'cloud-node-lifecycle-controller',
  'service-lb-controller',
  'service-lb-gc-controller',
  'nodeipam controller',
  'webhook',
  'webhook serving',
  'secure serving',
  'authentication',
  'authorization',
  'misc',
  'cloud api budget',
  'global',
];

const NO_NAMES: HelpNames = { controllers: [], controllersDisabledByDefault: [], webhooks: [] };

/**
 * Builds fresh flag sets (one call per parse, so defaults a vendor changes stay local). `names` fill the
 * "All controllers: …" and "All webhooks: …" lines of the help; parsing does not need them.
 */
export function cloudControllerManagerFlagSets(names: HelpNames = NO_NAMES): FlagSet[] {
  const fss = new NamedFlagSets();
  for (const name of SECTIONS) fss.flagSet(name);
  for (const group of OPTION_GROUPS) group.addFlags(fss, names);
  return fss.all();
}

/** The names the help lists, from the controllers the manager would run and the vendor's webhooks. */
export function helpNames(descriptors: readonly ControllerDescriptor[], webhooks: readonly string[]): HelpNames {
  return {
    controllers: descriptors.map((d) => d.name).sort(),
    controllersDisabledByDefault: descriptors
      .filter((d) => d.disabledByDefault)
      .map((d) => d.name)
      .sort(),
    webhooks: [...webhooks].sort(),
  };
}
