/**
 * A small parser for Kubernetes quantity strings (`resource.Quantity`), exact with `bigint`s.
 * Follows apimachinery `pkg/api/resource/quantity.go`'s grammar:
 * `<sign>?<digits>[.<digits>]<suffix>` with suffix one of the binary SI (`Ki Mi Gi Ti Pi Ei`), decimal SI
 * (`n u m "" k M G T P E`) or a decimal exponent (`e<int>` / `E<int>`).
 */

const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const QUANTITY_RE = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE])?$/;

/** A parsed quantity: the exact rational value `numerator / denominator` (denominator > 0). */
export class Quantity {
  /** The text it was parsed from. */
  readonly text: string;
  /** The numerator of the exact value, in base units (bytes for a storage size); negative for a negative quantity. */
  readonly numerator: bigint;
  /** The denominator of the exact value; always > 0. */
  readonly denominator: bigint;

  private constructor(text: string, numerator: bigint, denominator: bigint) {
    this.text = text;
    this.numerator = numerator;
    this.denominator = denominator;
  }

  /**
   * Parses a quantity such as `1.2Gi`, `987m`, `1000k` or `5e3`.
   * @throws Error `quantities must match the regular expression …` (apimachinery's message) for invalid text.
   */
  static parse(text: string): Quantity {
    const m = QUANTITY_RE.exec(text);
    if (m === null) {
      throw new Error(
        `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`,
      );
    }
    const [, sign, number, suffix = ''] = m as unknown as [string, string, string, string | undefined];
    const [intPart = '', fracPart = ''] = number.split('.');
    let numerator = BigInt(`${intPart}${fracPart}` || '0');
    let denominator = 10n ** BigInt(fracPart.length);
    let exp10 = 0;
    let exp2 = 0;
    if (suffix in BINARY_SUFFIXES) exp2 = BINARY_SUFFIXES[suffix] as number;
    else if (suffix in DECIMAL_SUFFIXES) exp10 = DECIMAL_SUFFIXES[suffix] as number;
    else exp10 = Number.parseInt(suffix.slice(1), 10);
    if (!Number.isSafeInteger(exp10) || Math.abs(exp10) > 1000) {
      throw new Error(`quantity ${JSON.stringify(text)} has an exponent out of range`);
    }
    if (exp10 >= 0) numerator *= 10n ** BigInt(exp10);
    else denominator *= 10n ** BigInt(-exp10);
    numerator *= 2n ** BigInt(exp2);
    if (sign === '-') numerator = -numerator;
    return new Quantity(text, numerator, denominator);
  }

  /** `Quantity.parse(q)` for strings; quantities are returned as they are. */
  static from(q: Quantity | string): Quantity {
    return typeof q === 'string' ? Quantity.parse(q) : q;
  }

  /** The value rounded up, away from zero, to an integer (apimachinery `Value()`): `987m` → 1. */
  value(): bigint {
    const { numerator: n, denominator: d } = this;
    const q = n / d;
    if (n % d === 0n) return q;
    return n > 0n ? q + 1n : q - 1n;
  }

  /** Compares the exact value with `v`: -1, 0 or 1. */
  cmp(v: bigint): -1 | 0 | 1 {
    const lhs = this.numerator;
    const rhs = v * this.denominator;
    return lhs < rhs ? -1 : lhs > rhs ? 1 : 0;
  }

  /** The text it was parsed from. */
  toString(): string {
    return this.text;
  }
}
