/**
 * Test helper: applies a strategic merge patch the way kube-apiserver does, for the directives the
 * cloud-provider helpers emit ($setElementOrder, $deleteFromPrimitiveList, {"$patch":"replace"} list
 * elements, null deletions, map merges, atomic lists). Used to stand in for the server in unit tests.
 */
type J = unknown;

const isObj = (v: J): v is Record<string, J> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function applyStrategicMergePatch(target: J, patch: J): J {
  if (!isObj(patch)) return patch;
  const out: Record<string, J> = isObj(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') || key.startsWith('$deleteFromPrimitiveList/')) continue;
    const order = patch[`$setElementOrder/${key}`];
    if (value === null) {
      delete out[key];
    } else if (Array.isArray(value) && value.some((v) => isObj(v) && v.$patch === 'replace')) {
      out[key] = value.filter((v) => !(isObj(v) && v.$patch === 'replace'));
    } else if (Array.isArray(value) && Array.isArray(order)) {
      const merged = new Set([...((out[key] as J[]) ?? []), ...value]);
      out[key] = (order as J[]).filter((v) => merged.has(v));
    } else if (isObj(value)) {
      out[key] = applyStrategicMergePatch(out[key], value);
    } else {
      out[key] = value;
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith('$deleteFromPrimitiveList/')) continue;
    const field = key.slice('$deleteFromPrimitiveList/'.length);
    const remaining = ((out[field] as J[]) ?? []).filter((v) => !(value as J[]).includes(v));
    if (remaining.length > 0) out[field] = remaining;
    else delete out[field];
  }
  return out;
}
