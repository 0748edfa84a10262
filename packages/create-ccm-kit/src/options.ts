/** What a new project is made from: the provider's name and the facets it implements. */

/** The facets a provider can implement; `instances` is the older Instances API with Zones. */
export const FACETS = ['instancesV2', 'loadBalancer', 'routes', 'instances'] as const;
export type Facet = (typeof FACETS)[number];

export interface ProjectOptions {
  /** Directory to create (must not exist, or be empty). */
  dir: string;
  /** Provider name: lower-case DNS label, the providerID scheme and `--cloud-provider` value. */
  provider: string;
  facets: Facet[];
}

const NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** @throws Error naming the problem when `name` cannot be a provider name. */
export function validateProviderName(name: string): string {
  if (!NAME.test(name) || name.length > 40)
    throw new Error(`provider name "${name}": use lower-case letters, digits and "-", starting with a letter (e.g. mycloud)`);
  return name;
}

/** Parses `instancesV2,loadBalancer` (case-insensitive; `zones` means `instances`). @throws Error naming the unknown facet. */
export function parseFacets(text: string): Facet[] {
  const out = new Set<Facet>();
  for (const raw of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const f = raw.toLowerCase() === 'zones' ? 'instances' : FACETS.find((x) => x.toLowerCase() === raw.toLowerCase());
    if (!f) throw new Error(`facet "${raw}": choose from ${FACETS.join(', ')} (zones = instances)`);
    out.add(f);
  }
  if (out.has('instances') && out.has('instancesV2'))
    throw new Error('facets: choose instancesV2 or instances (the older API with Zones), not both');
  if (out.size === 0) throw new Error('facets: choose at least one of ' + FACETS.join(', '));
  return FACETS.filter((f) => out.has(f));
}

/** The class name for a provider name: `my-cloud` → `MyCloudCloud`. */
export function className(provider: string): string {
  return provider.split('-').map((p) => p[0]!.toUpperCase() + p.slice(1)).join('') + 'Cloud';
}
