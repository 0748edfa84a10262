/**
 * {@link defineAnnotations}: declare a provider's Service annotations once, then parse a Service into a typed
 * object (or every problem, each naming its annotation and the expected form) and render the reference table.
 *
 * ```ts
 * const annotations = defineAnnotations({
 *   proxyProtocol: { name: 'example.com/proxy-protocol', type: 'boolean', default: false, description: '…' },
 *   healthCheckInterval: { name: 'example.com/health-check-interval', type: 'duration', minMs: 1000, default: 5000, description: '…' },
 * }, { prefix: 'example.com/' });
 * const { proxyProtocol, healthCheckInterval } = annotations.parseOrThrow(service); // boolean, number (ms)
 * ```
 */
import type { V1Service } from '@kubernetes/client-node';
import { type AnnotationProblem, InvalidAnnotationError } from './errors.js';
import { renderAnnotationTable } from './markdown.js';
import type { AnnotationSpec, AnnotationValues } from './spec.js';
import { expectedForm, parseValue } from './values.js';
import { closestName } from '../closest-name.js';

/** Options of {@link defineAnnotations}. */
export interface AnnotationSetOptions {
  /**
   * The vendor's annotation prefix (for example `example.com/`). An annotation under it that is not declared
   * is reported as a problem (with the closest declared name), so a typo is never silently ignored.
   */
  readonly prefix?: string;
}

/** The result of {@link AnnotationSet.parse}. */
export type AnnotationParseResult<D extends Readonly<Record<string, AnnotationSpec>>> =
  { ok: true; values: AnnotationValues<D> } | { ok: false; problems: AnnotationProblem[] };

/** Defaults supplied at parse time (for example from the cloud config), overriding the declared ones. */
export type AnnotationDefaults<D extends Readonly<Record<string, AnnotationSpec>>> = {
  [K in keyof D]?: AnnotationValues<D>[K];
};

/** A declared annotation set. */
export interface AnnotationSet<D extends Readonly<Record<string, AnnotationSpec>>> {
  /** The declarations, as given. */
  readonly specs: D;
  /** The declared annotation keys. */
  readonly names: readonly string[];
  /**
   * Parses the Service's annotations (or a bare annotation map). Absent annotations take `defaults[key]`, else
   * the declared default, else `undefined`. Never throws on data.
   */
  parse(
    source: V1Service | Readonly<Record<string, string>> | undefined,
    defaults?: AnnotationDefaults<D>,
  ): AnnotationParseResult<D>;
  /**
   * {@link AnnotationSet.parse}, throwing instead of returning problems.
   * @throws InvalidAnnotationError listing every problem (naming the Service when `source` is one).
   */
  parseOrThrow(
    source: V1Service | Readonly<Record<string, string>> | undefined,
    defaults?: AnnotationDefaults<D>,
  ): AnnotationValues<D>;
  /** The Markdown reference table (annotation, expected value, default, description). */
  markdownTable(): string;
}

function isService(source: unknown): source is V1Service {
  return typeof source === 'object' && source !== null && ('metadata' in source || 'spec' in source);
}

/**
 * Declares a set of Service annotations.
 * @param specs - one declaration per key of the parsed object.
 * @throws Error when two declarations share a name, a name is outside `prefix`, or a default is not valid for
 *   its own declaration (a programming error, caught at start-up).
 */
export function defineAnnotations<const D extends Readonly<Record<string, AnnotationSpec>>>(
  specs: D,
  options: AnnotationSetOptions = {},
): AnnotationSet<D> {
  const entries = Object.entries(specs) as [keyof D & string, AnnotationSpec][];
  const names = entries.map(([, s]) => s.name);
  for (const [key, spec] of entries) {
    if (names.indexOf(spec.name) !== names.lastIndexOf(spec.name))
      throw new Error(`annotations: ${spec.name} is declared twice`);
    if (options.prefix !== undefined && !spec.name.startsWith(options.prefix))
      throw new Error(`annotations: ${key} (${spec.name}) is outside the prefix ${options.prefix}`);
  }

  const parse: AnnotationSet<D>['parse'] = (source, defaults) => {
    const annotations = (isService(source) ? source.metadata?.annotations : source) ?? {};
    const problems: AnnotationProblem[] = [];
    const values: Record<string, unknown> = {};
    for (const [key, spec] of entries) {
      const raw = annotations[spec.name];
      if (raw === undefined) {
        values[key] = defaults?.[key] ?? spec.default;
        continue;
      }
      const result = parseValue(spec, raw);
      if (result.ok) {
        values[key] = result.value;
        continue;
      }
      const expected = expectedForm(spec);
      const why = result.reason ? `${result.reason}; expected ${expected}` : `is not ${expected}`;
      problems.push({
        annotation: spec.name,
        value: raw,
        expected,
        message: `annotation ${spec.name}: "${raw}" ${why}`,
      });
    }
    if (options.prefix !== undefined) {
      for (const [name, raw] of Object.entries(annotations)) {
        if (!name.startsWith(options.prefix) || names.includes(name)) continue;
        const guess = closestName(name, names);
        const expected = guess ? `did you mean ${guess}?` : `one of ${names.join(', ')}`;
        problems.push({
          annotation: name,
          value: raw,
          expected,
          message: `annotation ${name} is unknown (${expected})`,
        });
      }
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, values: values as AnnotationValues<D> };
  };

  const set: AnnotationSet<D> = {
    specs,
    names,
    parse,
    parseOrThrow(source, defaults) {
      const result = parse(source, defaults);
      if (result.ok) return result.values;
      const meta = isService(source) ? source.metadata : undefined;
      throw new InvalidAnnotationError(
        result.problems,
        meta ? `${meta.namespace ?? ''}/${meta.name ?? ''}` : undefined,
      );
    },
    markdownTable: () => renderAnnotationTable(Object.values(specs)),
  };

  // A default that its own declaration rejects is a programming error: fail at start-up, not per Service.
  for (const [key, spec] of entries) {
    if (spec.default === undefined || spec.type === 'string') continue;
    if (spec.type === 'enum' && !spec.values.includes(spec.default))
      throw new Error(`annotations: ${key}: the default "${spec.default}" is not one of its values`);
    if (
      (spec.type === 'integer' &&
        ((spec.min !== undefined && spec.default < spec.min) || (spec.max !== undefined && spec.default > spec.max))) ||
      (spec.type === 'duration' &&
        ((spec.minMs !== undefined && spec.default < spec.minMs) ||
          (spec.maxMs !== undefined && spec.default > spec.maxMs)))
    )
      throw new Error(`annotations: ${key}: the default ${spec.default} is out of its bounds`);
  }
  return set;
}
