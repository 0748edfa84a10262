/**
 * The cloud-controller-manager's flag sets, with upstream's names, defaults and help text
 * (k8s.io/cloud-provider `options`, k8s.io/controller-manager `options`, component-base). Each option group
 * (one module per group, as upstream's `options/*.go`) adds its flags to the help sections here; durations
 * are held in milliseconds.
 */
import type { FlagSet } from '../flags/flag-set.js';
import { NamedFlagSets } from './option-group.js';
import { OPTION_GROUPS } from './option-groups.js';

export { ACCEPTED_NO_OP_FEATURE_GATES, ALPHA_FEATURE_GATES, KNOWN_FEATURE_GATES } from './feature-gates.js';

/** The help sections, in upstream's order. */
const SECTIONS = [
  'generic',
  'leader-election',
  'leader-migration',
  'debugging',
  'cloud-node-controller',
  'service-lb-controller',
  'webhook',
  'secure serving',
  'authentication',
  'authorization',
  'misc',
  'global',
];

/** Builds fresh flag sets (one call per parse, so defaults a vendor changes stay local). */
export function cloudControllerManagerFlagSets(): FlagSet[] {
  const fss = new NamedFlagSets();
  for (const name of SECTIONS) fss.flagSet(name);
  for (const group of OPTION_GROUPS) group.addFlags(fss);
  return fss.all();
}
