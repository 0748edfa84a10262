/**
 * The declaration of one typed Service annotation: its name, its type (with bounds), its default and its
 * description. A vendor declares each annotation once; the same declaration drives parsing
 * ({@link defineAnnotations}) and the Markdown reference table ({@link renderAnnotationTable}).
 */

/** The fields every annotation spec shares. */
export interface AnnotationSpecBase {
  /** The annotation key, for example `example.com/load-balancer-health-check-interval`. */
  readonly name: string;
  /** What it does, one or two sentences (Markdown allowed); shown in the reference table. */
  readonly description: string;
  /**
   * How the default is described in the reference table when it is not a fixed value (for example
   * "`healthCheckInterval` of the cloud config"); default: the formatted `default`, or "unset".
   */
  readonly defaultText?: string;
}

/** Free text; with `pattern`, it must match (for example an ID that goes into a URL). */
export interface StringAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: a free-text annotation. */
  readonly type: 'string';
  /** A pattern the value must match (`RegExp.test`: anchor it with `^…$` to match the whole value). */
  readonly pattern?: RegExp;
  /**
   * The expected form in words, shown in errors and docs (default: the pattern, or "a string"); also useful
   * without a pattern, for a value the provider checks itself (a label selector, JSON).
   */
  readonly patternText?: string;
  /** The value when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: string;
}

/** `true` or `false` (also Go's `strconv.ParseBool` forms: `1`, `t`, `T`, `TRUE`, `True`, `0`, `f`, …). */
export interface BooleanAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: a boolean annotation. */
  readonly type: 'boolean';
  /** The value when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: boolean;
}

/** A decimal integer, optionally within `[min, max]`. */
export interface IntegerAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: an integer annotation. */
  readonly type: 'integer';
  /** The smallest value accepted (inclusive). */
  readonly min?: number;
  /** The largest value accepted (inclusive). */
  readonly max?: number;
  /** The value when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: number;
}

/** A Go duration (`500ms`, `2s`, `1m30s`); parsed into **milliseconds**, optionally within `[minMs, maxMs]`. */
export interface DurationAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: a Go duration, parsed into milliseconds. */
  readonly type: 'duration';
  /** The shortest duration accepted, in milliseconds (inclusive). */
  readonly minMs?: number;
  /** The longest duration accepted, in milliseconds (inclusive). */
  readonly maxMs?: number;
  /** In milliseconds. */
  readonly default?: number;
}

/** One of a fixed set of strings (case-sensitive). */
export interface EnumAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: one of `values`. */
  readonly type: 'enum';
  /** The accepted strings, compared case-sensitively; listed in errors and in the reference table. */
  readonly values: readonly string[];
  /** The value when the annotation is absent (one of `values`); without it the parsed field is `undefined`. */
  readonly default?: string;
}

/** Comma-separated CIDRs (`10.0.0.0/8, 2001:db8::/32`); parsed into canonical network form. */
export interface CIDRListAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: a comma-separated CIDR list. */
  readonly type: 'cidr-list';
  /** The CIDRs when the annotation is absent, in canonical form; without it the parsed field is `undefined`. */
  readonly default?: readonly string[];
}

/** One IP address, optionally of one family; parsed into canonical form. */
export interface IPAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: one IP address. */
  readonly type: 'ip';
  /** The only family accepted; unset accepts both. */
  readonly family?: 'IPv4' | 'IPv6';
  /** The address when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: string;
}

/** Comma-separated IP addresses, at most one per family when `onePerFamily`; canonical form. */
export interface IPListAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: a comma-separated IP list. */
  readonly type: 'ip-list';
  /**
   * Refuses a list with two addresses of one family (a dual-stack pair at most), as `loadBalancerIPs`-style fields
   * need.
   */
  readonly onePerFamily?: boolean;
  /** The addresses when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: readonly string[];
}

/** Comma-separated `key=value` pairs (`team=web,env=prod`); keys unique and non-empty, values may be empty. */
export interface MapAnnotation extends AnnotationSpecBase {
  /** Discriminates the spec: comma-separated `key=value` pairs. */
  readonly type: 'map';
  /** The map when the annotation is absent; without it the parsed field is `undefined`. */
  readonly default?: Readonly<Record<string, string>>;
}

/** Any annotation declaration. */
export type AnnotationSpec =
  | StringAnnotation
  | BooleanAnnotation
  | IntegerAnnotation
  | DurationAnnotation
  | EnumAnnotation
  | CIDRListAnnotation
  | IPAnnotation
  | IPListAnnotation
  | MapAnnotation;

/** The parsed value type of one declaration. */
export type AnnotationValue<S extends AnnotationSpec> = S extends { type: 'string' }
  ? string
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'integer' | 'duration' }
      ? number
      : S extends { type: 'enum'; values: readonly (infer V)[] }
        ? V
        : S extends { type: 'cidr-list' | 'ip-list' }
          ? string[]
          : S extends { type: 'ip' }
            ? string
            : Record<string, string>;

/** The parsed object of a declaration set: declared with a `default`, a key is always present. */
export type AnnotationValues<D extends Readonly<Record<string, AnnotationSpec>>> = {
  [K in keyof D]: D[K] extends { default: unknown } ? AnnotationValue<D[K]> : AnnotationValue<D[K]> | undefined;
};
