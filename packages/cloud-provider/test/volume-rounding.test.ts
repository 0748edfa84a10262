import {
  Quantity,
  roundUpToB,
  roundUpToBInt,
  roundUpToGiB,
  roundUpToGiBInt,
  roundUpToGiBInt32,
  roundUpToKB,
  roundUpToKBInt,
  roundUpToKiB,
  roundUpToKiBInt,
  roundUpToMB,
  roundUpToMBInt,
  roundUpToMiB,
  roundUpToMiBInt,
} from '@ccm-kit/cloud-provider/volume';
import { describe, expect, it } from 'vitest';

const inputs = ['1000Ki', '1000k', '1000Mi', '1000M', '1000G', '1000Gi', '1.2Gi'];

describe('rounding (upstream rounding_test.go, upstream `k8s.io/cloud-provider volume/helpers/*_test.go`)', () => {
  it.each([
    ['roundUpToGiB', roundUpToGiB, [1, 1, 1, 1, 932, 1000, 2], 8588886016n],
    ['roundUpToMB', roundUpToMB, [2, 1, 1049, 1000, 1000000, 1073742, 1289], 9222246136948n],
    ['roundUpToMiB', roundUpToMiB, [1, 1, 1000, 954, 953675, 1024000, 1229], 8795019280384n],
    ['roundUpToKB', roundUpToKB, [1024, 1000, 1048576, 1000000, 1000000000, 1073741824, 1288491], 9222246136947934n],
    ['roundUpToKiB', roundUpToKiB, [1000, 977, 1024000, 976563, 976562500, 1048576000, 1258292], 9006099743113216n],
  ])('%s', (_name, fn, want, big) => {
    expect(inputs.map((q) => Number(fn(q)))).toEqual(want);
    expect(fn('8191Pi')).toBe(big);
    expect(() => fn('8192Pi')).toThrow('quantity 8192Pi is too great, overflows int64');
  });

  it('the …Int variants return numbers and refuse values above the safe-integer range', () => {
    const cases: [(q: string) => number, number[]][] = [
      [roundUpToGiBInt, [1, 1, 1, 1, 932, 1000, 2]],
      [roundUpToMBInt, [2, 1, 1049, 1000, 1000000, 1073742, 1289]],
      [roundUpToMiBInt, [1, 1, 1000, 954, 953675, 1024000, 1229]],
      [roundUpToKBInt, [1024, 1000, 1048576, 1000000, 1000000000, 1073741824, 1288491]],
      [roundUpToKiBInt, [1000, 977, 1024000, 976563, 976562500, 1048576000, 1258292]],
    ];
    for (const [fn, want] of cases) expect(inputs.map(fn)).toEqual(want);
    expect(roundUpToGiBInt('8191Pi')).toBe(8588886016);
    expect(() => roundUpToBInt('8191Pi')).toThrow('overflows a safe integer');
    expect(() => roundUpToKBInt('8192Pi')).toThrow('overflows int64');
  });

  it('roundUpToGiBInt32', () => {
    expect(inputs.map(roundUpToGiBInt32)).toEqual([1, 1, 1, 1, 932, 1000, 2]);
    expect(roundUpToGiBInt32('2047Pi')).toBe(2146435072);
    expect(() => roundUpToGiBInt32('2048Pi')).toThrow('quantity 2048Pi is too great, overflows int32');
  });

  it('roundUpToB', () => {
    expect(roundUpToB('987m')).toBe(1n);
    expect(roundUpToB('1.2Gi')).toBe(1288490189n);
    expect(roundUpToB('8191Pi')).toBe(9222246136947933184n);
    expect(() => roundUpToB('8192Pi')).toThrow('overflows int64');
    expect(roundUpToBInt('987m')).toBe(1);
  });

  it('accepts parsed quantities too', () => {
    expect(roundUpToGiB(Quantity.parse('3Gi'))).toBe(3n);
  });
});

describe('Quantity', () => {
  it('parses binary SI, decimal SI and exponents exactly', () => {
    expect(Quantity.parse('1Ki').value()).toBe(1024n);
    expect(Quantity.parse('1.5k').value()).toBe(1500n);
    expect(Quantity.parse('5e3').value()).toBe(5000n);
    expect(Quantity.parse('5E3').value()).toBe(5000n);
    expect(Quantity.parse('1E').value()).toBe(10n ** 18n);
    expect(Quantity.parse('2Ei').value()).toBe(2n ** 61n);
    expect(Quantity.parse('.5').value()).toBe(1n);
    expect(Quantity.parse('1.').value()).toBe(1n);
    expect(Quantity.parse('+3').value()).toBe(3n);
    expect(Quantity.parse('100n').value()).toBe(1n);
    expect(Quantity.parse('2500u').value()).toBe(1n);
  });

  it('rounds fractional values up, away from zero', () => {
    expect(Quantity.parse('987m').value()).toBe(1n);
    expect(Quantity.parse('1001m').value()).toBe(2n);
    expect(Quantity.parse('-1.5').value()).toBe(-2n);
    expect(Quantity.parse('2000m').value()).toBe(2n);
  });

  it('compares exactly with an integer', () => {
    expect(Quantity.parse('8192Pi').cmp(2n ** 63n - 1n)).toBe(1);
    expect(Quantity.parse('1.5').cmp(1n)).toBe(1);
    expect(Quantity.parse('1').cmp(1n)).toBe(0);
    expect(Quantity.parse('0.5').cmp(1n)).toBe(-1);
  });

  it.each(['', ' 1Gi', '1 Gi', '1GB', '1Gib', 'Gi', '1e', '1.2.3', '--1', '1KI', 'abc'])('rejects %j', (text) => {
    expect(() => Quantity.parse(text)).toThrow('quantities must match the regular expression');
  });
});
