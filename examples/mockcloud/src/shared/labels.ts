/**
 * Label keys, values and selectors with Kubernetes syntax, used by the mock API server's
 * `label_selector` filter and by the provider's `node-selector` annotation.
 *
 * Selector grammar (comma = AND): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`.
 * Follows the semantics of apimachinery `labels.Parse` (`!=` and `notin` also match when the key is absent).
 */

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Thrown for a malformed selector, key or value; the message names the offending text. */
export class LabelSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSyntaxError';
  }
}

/** Why `key` is not a valid label key (`[prefix/]name`, name ≤ 63, prefix ≤ 253), or `undefined` when it is. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    return `invalid label key "${key}": the prefix must be a DNS subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key "${key}": the name must be 1-63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return undefined;
}

/** Why `value` is not a valid label value (empty, or ≤ 63 with the name syntax), or `undefined` when it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !NAME.test(value)) {
    return `invalid label value "${value}": must be at most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return undefined;
}

/** Every problem of a label map (keys and values must be strings with label syntax); empty when valid. */
export function labelMapProblems(labels: unknown, field: string): string[] {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    return [`${field} must be an object of string keys and values`];
  }
  const problems: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const kp = labelKeyProblem(k);
    if (kp) problems.push(`${field}: ${kp}`);
    if (typeof v !== 'string') problems.push(`${field}.${k} must be a string`);
    else {
      const vp = labelValueProblem(v);
      if (vp) problems.push(`${field}.${k}: ${vp}`);
    }
  }
  return problems;
}

/** One requirement of a selector. */
export interface LabelRequirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | 'doesnotexist';
  /** The values of `in`/`notin` (`=` is `in` with one value, `!=` is `notin` with one value). */
  values: string[];
}

/** A parsed selector: the AND of its requirements (an empty selector matches everything). */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  toString(): string;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw new LabelSyntaxError(`invalid label selector "${text}": unbalanced ')'`);
  }
  if (depth !== 0) throw new LabelSyntaxError(`invalid label selector "${text}": unbalanced '('`);
  parts.push(text.slice(start));
  return parts;
}

function checkKey(key: string): string {
  const p = labelKeyProblem(key);
  if (p) throw new LabelSyntaxError(p);
  return key;
}

function checkValue(value: string): string {
  const p = labelValueProblem(value);
  if (p) throw new LabelSyntaxError(p);
  return value;
}

function parseRequirement(raw: string, whole: string): LabelRequirement {
  const part = raw.trim();
  if (part === '') throw new LabelSyntaxError(`invalid label selector "${whole}": empty requirement`);
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (set) {
    const values = set[3]!.split(',').map((v) => checkValue(v.trim()));
    return { key: checkKey(set[1]!), operator: set[2] as 'in' | 'notin', values };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
  if (eq) {
    const operator = eq[2] === '!=' ? 'notin' : 'in';
    return { key: checkKey(eq[1]!), operator, values: [checkValue(eq[3]!)] };
  }
  if (part.startsWith('!')) return { key: checkKey(part.slice(1).trim()), operator: 'doesnotexist', values: [] };
  if (/^\S+$/.test(part)) return { key: checkKey(part), operator: 'exists', values: [] };
  throw new LabelSyntaxError(`invalid label selector "${whole}": cannot parse "${part}"`);
}

function matchOne(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
      return !has || !r.values.includes(labels[r.key]!);
  }
}

function render(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case 'doesnotexist':
      return `!${r.key}`;
    case 'in':
      return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values.join(',')})`;
    case 'notin':
      return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${r.values.join(',')})`;
  }
}

/**
 * Parses a selector. An empty or blank string selects everything.
 * @throws LabelSyntaxError naming the bad requirement, key or value.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = text.trim() === '' ? [] : splitTopLevel(text).map((p) => parseRequirement(p, text));
  return {
    requirements,
    matches: (labels) => requirements.every((r) => matchOne(r, labels ?? {})),
    toString: () => requirements.map(render).join(','),
  };
}

/** The selector `k1=v1,k2=v2` that matches exactly these labels (and any others). */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
