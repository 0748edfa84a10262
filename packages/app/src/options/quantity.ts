/**
 * Byte sizes written as Kubernetes quantities (k8s.io/apimachinery `resource.ParseQuantity`, as the
 * `--log-*-info-buffer-size` flags of k8s.io/component-base take them): `512`, `1k` (1000), `2Ki` (1024),
 * `3M`, `4G`, `5Mi`, `6Gi`; `Quantity.Value()` rounds a fraction up to the next byte.
 */

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * The number of bytes a quantity stands for.
 * @throws Error with upstream's messages: `quantities must match the regular expression …` or `unable to parse
 *   quantity's suffix`.
 */
export function parseByteQuantity(s: string): number {
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(s);
  if (!m) {
    throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  const scale = SUFFIX[m[2]!];
  const n = Number(m[1]);
  if (scale === undefined) throw new Error("unable to parse quantity's suffix");
  if (!Number.isFinite(n)) throw new Error(`unable to parse quantity's number ${JSON.stringify(m[1])}`);
  return Math.ceil(n * scale);
}
