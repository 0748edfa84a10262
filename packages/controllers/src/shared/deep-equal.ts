/**
 * Go `reflect.DeepEqual` over Kubernetes API objects as client-node gives them: `null` and `undefined`
 * (and keys holding them) are Go's nil, so a missing field equals an undefined one, but nil is **not** equal
 * to an empty array or object (upstream compares `spec.podCIDRs`, `status.addresses` and route addresses
 * this way). `Date` values compare by time.
 */
export function deepEqualNilStrict(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aNil = a === null || a === undefined;
  const bNil = b === null || b === undefined;
  if (aNil || bNil) return aNil && bNil;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bArr = b as unknown[];
    return a.length === bArr.length && a.every((v, i) => deepEqualNilStrict(v, bArr[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (!deepEqualNilStrict(ao[k], bo[k])) return false;
  }
  return true;
}
