/** Order statistics for the benchmark tables. */

/** The q-quantile (0..1) of `values` with linear interpolation between order statistics; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo]! + (xs[hi]! - xs[lo]!) * (pos - lo);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Interquartile range Q3 − Q1. */
export const iqr = (values: readonly number[]): number => quantile(values, 0.75) - quantile(values, 0.25);

/** `median (IQR)` with `digits` decimals, or `–` when there are no values. */
export function medianIqr(values: readonly number[], digits = 1): string {
  const m = median(values);
  if (Number.isNaN(m)) return '–';
  if (values.length < 2) return m.toFixed(digits);
  return `${m.toFixed(digits)} (${iqr(values).toFixed(digits)})`;
}
