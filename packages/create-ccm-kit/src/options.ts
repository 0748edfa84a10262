/** What a new project is made from: the provider's name and the facets it implements. */
import { CONTROLLER_FACET_NAMES, type ControllerFacetName } from '@ccm-kit/cloud-provider';

/**
 * A facet a new provider can implement: each of `@ccm-kit/cloud-provider`'s `CONTROLLER_FACET_NAMES`, on its own
 * or in any combination a real provider uses (docs/provider-families.md): `instances` is the older Instances API,
 * `zones` the Zones API that goes with it or with InstancesV2.
 */
export type Facet = ControllerFacetName;

/** What `create-ccm-kit` scaffolds: the target directory, the provider's name and its facets. */
export interface ProjectOptions {
  /** Directory to create (must not exist, or be empty). */
  dir: string;
  /** Provider name: lower-case DNS label, the providerID scheme and `--cloud-provider` value. */
  provider: string;
  /** The facets the provider implements (at least one); each gets its source file, tests and conformance options. */
  facets: Facet[];
  /** The npm registry the project installs from, written to its `.npmrc` (absent: npm's default). */
  registry?: string;
}

const NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** @throws Error naming the problem when `name` cannot be a provider name. */
export function validateProviderName(name: string): string {
  if (!NAME.test(name) || name.length > 40)
    throw new Error(
      `provider name "${name}": use lower-case letters, digits and "-", starting with a letter (e.g. mycloud)`,
    );
  return name;
}

/**
 * Parses `instancesV2,zones,loadBalancer` (case-insensitive, any combination, in `CONTROLLER_FACET_NAMES` order).
 * @throws Error naming the unknown facet, or when the list is empty.
 */
export function parseFacets(text: string): Facet[] {
  const out = new Set<Facet>();
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const f = CONTROLLER_FACET_NAMES.find((x) => x.toLowerCase() === raw.toLowerCase());
    if (!f) throw new Error(`facet "${raw}": choose from ${CONTROLLER_FACET_NAMES.join(', ')}`);
    out.add(f);
  }
  if (out.size === 0) throw new Error('facets: choose at least one of ' + CONTROLLER_FACET_NAMES.join(', '));
  return CONTROLLER_FACET_NAMES.filter((f) => out.has(f));
}

/** The class name for a provider name: `my-cloud` → `MyCloudCloud`. */
export function className(provider: string): string {
  return (
    provider
      .split('-')
      .map((p) => p[0]!.toUpperCase() + p.slice(1))
      .join('') + 'Cloud'
  );
}
