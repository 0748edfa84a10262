/**
 * Where the workload templates read their settings from. One template source serves two outputs:
 * {@link valuesSource} reads concrete {@link ManifestValues} (`ccm-kit manifests`, docs/deploy), and
 * {@link helmSource} returns Helm template expressions (`{{ .Values.… }}`), which `renderHelmChart` writes
 * into the chart's templates. The templates never branch on a value themselves: they ask the source.
 * The namespace is not a value: it is Helm's release namespace (`helm install -n <ns>`, `.Release.Namespace`),
 * given to {@link valuesSource} by `ccm-kit manifests --namespace` (decision 0425).
 */
import type { ManifestValues } from './values.js';

/** A dotted path into {@link ManifestValues}, e.g. `image.tag`. */
export type ValuePath = string;

export interface TemplateSource {
  /** The value at `path` (a scalar, list or map). */
  value<T = unknown>(path: ValuePath): T;
  /** The string at `path`, or `fallback` when it is missing or empty (Helm's `default`). */
  valueOr(path: ValuePath, fallback: string): string;
  /** The namespace the CCM is installed in (the release namespace). */
  namespace(): string;
  /** `whenTrue` if the value at `path` is truthy, else `whenFalse`. */
  choose<T>(path: ValuePath, whenTrue: T, whenFalse: T): T;
  /** The flags in the map at `path`, as `--name=value` strings. */
  flags(path: ValuePath): string[];
  /** `parts` joined into one string (each part a literal or a {@link value}). */
  concat(...parts: unknown[]): string;
  /** Whether an object guarded by `condition` is rendered (`undefined` for Helm: the template decides). */
  include(condition: string): boolean | undefined;
}

function lookup(values: ManifestValues, path: ValuePath): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], values);
}

/**
 * Flags as the CCM parses them: `--name=value`, a bare `--name` for an empty string; in name order, as
 * Helm's `range` over a map gives them, so the chart and the command render the same list.
 */
export function flagList(args: Record<string, unknown>): string[] {
  return Object.entries(args)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => (v === '' ? `--${k}` : `--${k}=${String(v)}`));
}

/** The namespace of `ccm-kit manifests` without `--namespace`, and upstream's for the CCM. */
export const DEFAULT_NAMESPACE = 'kube-system';

/**
 * Reads concrete values, for a CCM installed in `namespace`. `include` conditions are `path` or
 * `path==literal`.
 */
export function valuesSource(values: ManifestValues, namespace = DEFAULT_NAMESPACE): TemplateSource {
  return {
    value: <T>(path: ValuePath) => lookup(values, path) as T,
    valueOr: (path, fallback) => {
      const v = lookup(values, path);
      return v === undefined || v === null || v === '' ? fallback : String(v);
    },
    namespace: () => namespace,
    choose: (path, a, b) => (lookup(values, path) ? a : b),
    flags: (path) => flagList(lookup(values, path) as Record<string, unknown>),
    concat: (...parts) => parts.map(String).join(''),
    include: (condition) => {
      const [path, literal] = condition.split('==');
      const v = lookup(values, path!);
      return literal === undefined ? Boolean(v) : String(v) === literal;
    },
  };
}

/** Marks text that must become a raw (unquoted) Helm action in the rendered template. */
const RAW = (action: string) => `@@raw@@${action}@@`;
/** Marks a key whose value is a YAML block written by a Helm action at the key's indentation. */
const BLOCK = (action: string) => `@@block@@${action}@@`;

/** Returns Helm template expressions; {@link toHelmTemplate} turns the markers into actions. */
export function helmSource(): TemplateSource {
  // A key that is not an identifier (a flag name: `args.leader-elect-resource-namespace`) needs `index`;
  // Go's raw strings (backquotes) keep the action free of `"`, which YAML would escape.
  const ref = (path: ValuePath) => {
    const keys = path.split('.');
    return keys.every((k) => /^[A-Za-z_]\w*$/.test(k))
      ? `.Values.${path}`
      : `(index .Values ${keys.map((k) => `\`${k}\``).join(' ')})`;
  };
  return {
    value: <T>(path: ValuePath) => BLOCK(`toYaml ${ref(path)}`) as T,
    valueOr: (path, fallback) => RAW(`${ref(path)} | default \`${fallback}\``),
    namespace: () => RAW('.Release.Namespace'),
    choose: <T>(path: ValuePath, a: T, b: T) => RAW(`if ${ref(path)} }}${String(a)}{{ else }}${String(b)}{{ end`) as T,
    flags: (path) => [BLOCK(`flags ${ref(path)}`)],
    concat: (...parts) =>
      parts
        .map((p) => (typeof p === 'string' && p.startsWith('@@block@@toYaml ') ? RAW(p.slice(16, -2)) : String(p)))
        .join(''),
    include: () => undefined,
  };
}

/** Helm's spelling of an `include` condition (`path` or `path==literal`). */
export function helmCondition(condition: string): string {
  const [path, literal] = condition.split('==');
  return literal === undefined ? `.Values.${path}` : `eq .Values.${path} ${JSON.stringify(literal)}`;
}

/**
 * Replaces the markers in YAML text written from a template fed by {@link helmSource}:
 * a value that is one block marker becomes `{{- toYaml … | nindent N }}` on the key's line (N = the
 * key's indentation + 2), a value or list item that is one raw marker becomes `{{ … }}` unquoted, and raw
 * markers inside a string become actions inside that string.
 */
export function toHelmTemplate(yamlText: string): string {
  return yamlText
    .split('\n')
    .map((line) => {
      const flags = /^(\s*)- "?@@block@@flags ([^@]*)@@"?$/.exec(line);
      if (flags) {
        const [, indent = '', ref = ''] = flags;
        return [
          `${indent}{{- range $k, $v := ${ref} }}`,
          `${indent}- {{ if eq (toString $v) "" }}{{ printf "--%s" $k | quote }}{{ else }}{{ printf "--%s=%v" $k $v | quote }}{{ end }}`,
          `${indent}{{- end }}`,
        ].join('\n');
      }
      const block = /^(\s*)(- )?([^:]*: )?"?@@block@@([^@]*)@@"?$/.exec(line);
      if (block) {
        const [, indent = '', dash = '', key = '', action = ''] = block;
        const n = indent.length + (dash ? 2 : 0) + (key ? 2 : 0);
        return `${indent}${dash}${key.trimEnd()}{{- ${action} | nindent ${n} }}`;
      }
      return line
        .replace(/"@@raw@@([^@]*)@@"/g, (_m, a: string) => `{{ ${a} }}`)
        .replace(/@@raw@@([^@]*)@@/g, (_m, a: string) => `{{ ${a} }}`);
    })
    .join('\n');
}
