import { describe, expect, it } from 'vitest';
import {
  LabelSyntaxError,
  labelKeyProblem,
  labelMapProblems,
  labelValueProblem,
  parseLabelSelector,
  selectorFromLabels,
} from '../src/shared/labels.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/pool': 'edge' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=api', false],
    ['app!=api', true],
    ['missing!=x', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['app in (api, web)', true],
    ['app notin (api,web)', false],
    ['missing notin (a)', true],
    ['example.com/pool=edge,tier=front', true],
    ['example.com/pool=edge,tier=back', false],
  ])('%j matches: %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('renders a canonical form', () => {
    expect(parseLabelSelector(' app == web , !x, k in (a,b)').toString()).toBe('app=web,!x,k in (a,b)');
  });

  it.each([
    ['app in (a', /unbalanced '\('/],
    ['app)', /unbalanced '\)'/],
    ['app=web,', /empty requirement/],
    ['bad key=x', /cannot parse/],
    ['-app=x', /invalid label key "-app"/],
    ['app=bad value!', /cannot parse|invalid label value/],
    ['app=has!bang', /invalid label value "has!bang"/],
  ])('rejects %j', (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(LabelSyntaxError);
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });

  it('builds an equality selector from labels', () => {
    const text = selectorFromLabels({ a: '1', 'x.io/b': '2' });
    expect(text).toBe('a=1,x.io/b=2');
    expect(parseLabelSelector(text).matches({ a: '1', 'x.io/b': '2', c: '3' })).toBe(true);
  });
});

describe('label keys and values', () => {
  it('accepts Kubernetes syntax and explains rejections', () => {
    expect(labelKeyProblem('mockcloud.ccm-kit.io/service-uid')).toBeUndefined();
    expect(labelKeyProblem('a'.repeat(64))).toMatch(/name must be 1-63/);
    expect(labelKeyProblem('UPPER.io/x')).toMatch(/prefix must be a DNS subdomain/);
    expect(labelValueProblem('')).toBeUndefined();
    expect(labelValueProblem('11111111-2222-3333-4444-555555555555')).toBeUndefined();
    expect(labelValueProblem('x'.repeat(64))).toMatch(/at most 63/);
    expect(labelMapProblems([], 'labels')).toEqual(['labels must be an object of string keys and values']);
    expect(labelMapProblems({ ok: 'v', n: 1 }, 'labels')).toEqual(['labels.n must be a string']);
  });
});
