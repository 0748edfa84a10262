/**
 * Rounding volume sizes up to allocation units.
 * Follows upstream `k8s.io/cloud-provider/volume/helpers/rounding.go` (upstream `k8s.io/cloud-provider volume/helpers/*_test.go`): the byte
 * count is the quantity rounded up to an integer, then divided by the unit with a ceiling.
 * The int64 results are `bigint`s (they can exceed 2^53); the `…Int` variants return `number`s.
 */
import { Quantity } from './quantity.js';

/** 10^9 bytes. */
export const GB = 1000n * 1000n * 1000n;
/** 2^30 bytes. */
export const GiB = 1024n * 1024n * 1024n;
/** 10^6 bytes. */
export const MB = 1000n * 1000n;
/** 2^20 bytes. */
export const MiB = 1024n * 1024n;
/** 10^3 bytes. */
export const KB = 1000n;
/** 2^10 bytes. */
export const KiB = 1024n;

const MAX_INT64 = 2n ** 63n - 1n;
const MAX_INT32 = 2n ** 31n - 1n;

/**
 * Rounds `size` up to a whole number of `unitBytes`.
 * @throws RangeError `quantity <q> is too great, overflows int64` when `size` ≥ 2^63 − 1.
 * @throws Error for an unparsable quantity string.
 */
export function roundUpTo(size: Quantity | string, unitBytes: bigint): bigint {
  const q = Quantity.from(size);
  if (q.cmp(MAX_INT64) >= 0) throw new RangeError(`quantity ${q} is too great, overflows int64`);
  const bytes = q.value();
  const units = bytes / unitBytes;
  return bytes % unitBytes > 0n ? units + 1n : units;
}

function toNumber(q: Quantity | string, v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`quantity ${Quantity.from(q)} is too great, overflows a safe integer`);
  }
  return Number(v);
}

/** Whole GiB, rounded up. @throws RangeError on int64 overflow. */
export const roundUpToGiB = (size: Quantity | string): bigint => roundUpTo(size, GiB);
/** Whole MB, rounded up. @throws RangeError on int64 overflow. */
export const roundUpToMB = (size: Quantity | string): bigint => roundUpTo(size, MB);
/** Whole MiB, rounded up. @throws RangeError on int64 overflow. */
export const roundUpToMiB = (size: Quantity | string): bigint => roundUpTo(size, MiB);
/** Whole KB, rounded up. @throws RangeError on int64 overflow. */
export const roundUpToKB = (size: Quantity | string): bigint => roundUpTo(size, KB);
/** Whole KiB, rounded up. @throws RangeError on int64 overflow. */
export const roundUpToKiB = (size: Quantity | string): bigint => roundUpTo(size, KiB);
/** Whole bytes, rounded up (`987m` → 1). @throws RangeError on int64 overflow. */
export const roundUpToB = (size: Quantity | string): bigint => roundUpTo(size, 1n);

/** {@link roundUpToGiB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToGiBInt = (size: Quantity | string): number => toNumber(size, roundUpToGiB(size));
/** {@link roundUpToMB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToMBInt = (size: Quantity | string): number => toNumber(size, roundUpToMB(size));
/** {@link roundUpToMiB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToMiBInt = (size: Quantity | string): number => toNumber(size, roundUpToMiB(size));
/** {@link roundUpToKB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToKBInt = (size: Quantity | string): number => toNumber(size, roundUpToKB(size));
/** {@link roundUpToKiB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToKiBInt = (size: Quantity | string): number => toNumber(size, roundUpToKiB(size));
/** {@link roundUpToB} as a number. @throws RangeError when above `Number.MAX_SAFE_INTEGER`. */
export const roundUpToBInt = (size: Quantity | string): number => toNumber(size, roundUpToB(size));

/**
 * Whole GiB as an int32 number.
 * @throws RangeError `quantity <q> is too great, overflows int32` above 2^31 − 1 GiB (and the int64 error).
 */
export function roundUpToGiBInt32(size: Quantity | string): number {
  const v = roundUpToGiB(size);
  if (v > MAX_INT32) throw new RangeError(`quantity ${Quantity.from(size)} is too great, overflows int32`);
  return Number(v);
}
