/**
 * Go's `strconv.ParseBool`, which upstream uses to read the exclusion label
 * `node.kubernetes.io/exclude-from-external-load-balancers`.
 * Follows upstream `strconv.ParseBool` (Go standard library).
 */

const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_VALUES = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Parses `value` exactly as Go's `strconv.ParseBool`: `1 t T TRUE true True` are true, `0 f F FALSE false False`
 * are false. Anything else, including the empty string, `yes` and surrounding spaces, is not a bool.
 * @returns the parsed value, or `undefined` when `value` does not parse (Go's error case).
 */
export function parseGoBool(value: string): boolean | undefined {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return undefined;
}
