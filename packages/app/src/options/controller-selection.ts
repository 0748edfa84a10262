/**
 * `--controllers` semantics, as upstream `k8s.io/controller-manager` `IsControllerEnabled` and
 * `k8s.io/cloud-provider/app` alias resolution:
 * - each entry is `*`, `name` or `-name`; aliases resolve to canonical names (the `-` is kept);
 * - the first explicit entry for a name wins, wherever `*` stands;
 * - with no explicit entry, `*` enables everything not disabled by default; an empty list enables nothing.
 */

import type { ControllerDescriptor } from '@ccm-kit/controllers';

/** The alias map of every controller (`alias` → canonical name). */
export function controllerAliases(descriptors: readonly ControllerDescriptor[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of descriptors) for (const a of d.aliases ?? []) out[a] = d.name;
  return out;
}

/**
 * Validates entries against the known names (after alias resolution); returns one message per unknown entry:
 * upstream's `"<name>" is not in the list of known <what>` (the unresolved name), prefixed with the flag
 * (`--controllers` or `--webhooks`) and followed by the names that are known.
 */
export function validateControllerList(
  list: readonly string[],
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
  what: 'controllers' | 'webhooks' = 'controllers',
): string[] {
  const errs: string[] = [];
  const knownSet = new Set(known);
  const listed = known.length > 0 ? `known: ${[...known].sort().join(', ')}` : `no ${what} are registered`;
  for (const entry of list) {
    if (entry === '*') continue;
    const bare = entry.startsWith('-') ? entry.slice(1) : entry;
    const resolved = aliases[bare] ?? bare;
    if (!knownSet.has(resolved)) {
      errs.push(`--${what}: ${JSON.stringify(bare)} is not in the list of known ${what} (${listed})`);
    }
  }
  return errs;
}

/** Resolves aliases in each entry, keeping order, duplicates and the leading `-`. */
export function resolveControllerAliases(list: readonly string[], aliases: Readonly<Record<string, string>>): string[] {
  return list.map((entry) => {
    const neg = entry.startsWith('-');
    const bare = neg ? entry.slice(1) : entry;
    const resolved = aliases[bare] ?? bare;
    return neg ? `-${resolved}` : resolved;
  });
}

/** Whether `name` is enabled by the (alias-resolved) list. */
export function isControllerEnabled(
  name: string,
  disabledByDefault: ReadonlySet<string>,
  list: readonly string[],
): boolean {
  let star = false;
  for (const entry of list) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !disabledByDefault.has(name);
}
