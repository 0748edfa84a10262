/**
 * Unique object names for tests that share one control plane: `<prefix>-<run>-<n>`, a valid DNS-1123
 * label (lower case, at most 63 characters), different in every call and every test process.
 */
const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
let seq = 0;

/**
 * A unique name starting with `prefix` (lower-cased, other characters than `[a-z0-9-]` become `-`).
 * @throws RangeError when the name would exceed 63 characters (a shorter prefix fixes it).
 */
export function uniqueName(prefix: string): string {
  const base = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const name = `${base}-${run}-${++seq}`;
  if (name.length > 63)
    throw new RangeError(
      `uniqueName: prefix ${JSON.stringify(prefix)} is too long for a DNS-1123 label (63 characters)`,
    );
  return name;
}
