/**
 * From a protobufjs-decoded Kubernetes message to the object `JSON.parse` gives for the server's JSON of the same
 * object (the shape ccm-kit's informers and `@kubernetes/client-node`'s watch hand to controllers): the fields in
 * the Go struct's order, empty ones left out as the `json` tags say (schema.ts), `metav1.Time` as an RFC 3339
 * string in whole seconds (`null` when zero), `MicroTime` with microseconds, a `Quantity` as its string, an
 * `IntOrString` as a number or a string, `FieldsV1` as the JSON object its bytes hold, int64 as a number.
 * Follows k8s.io/apimachinery `pkg/apis/meta/v1/time_proto.go` (`Time.Unmarshal` keeps whole seconds),
 * `micro_time_proto.go`, `pkg/util/intstr/intstr.go` and `pkg/api/resource/quantity_proto.go`.
 */
import type protobuf from 'protobufjs';
import { type JsonRule, jsonRules } from './schema.ts';

type Decoded = Record<string, unknown>;
type Convert = (v: Decoded) => unknown;

/** How one field is written. */
interface FieldPlan {
  name: string;
  rule: JsonRule;
  kind: 'scalar' | 'message' | 'repeated' | 'map';
  /** For a message (or repeated/map of messages): its conversion; undefined for scalars. */
  convert?: Convert;
  /** The JSON of an absent `always` field. */
  zero: () => unknown;
}

const utf8 = new TextDecoder();

/** RFC 3339 in whole seconds, UTC, as `metav1.Time` marshals (`null` for the zero time). */
export function timeToJson(seconds: number): string | null {
  if (seconds === 0) return null;
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

/** RFC 3339 with microseconds, UTC, as `metav1.MicroTime` marshals (`null` for the zero time). */
export function microTimeToJson(seconds: number, nanos: number): string | null {
  if (seconds === 0 && nanos === 0) return null;
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

const SPECIAL: Record<string, Convert> = {
  Time: (m) => timeToJson((m.seconds as number) || 0),
  MicroTime: (m) => microTimeToJson((m.seconds as number) || 0, (m.nanos as number) || 0),
  Quantity: (m) => (m.string as string) || '0',
  IntOrString: (m) => ((m.type as number) === 1 ? (m.strVal as string) : (m.intVal as number) || 0),
  FieldsV1: (m) => {
    const raw = m.Raw as Uint8Array | undefined;
    return raw && raw.length > 0 ? (JSON.parse(utf8.decode(raw)) as unknown) : {};
  },
};

const isZeroScalar = (v: unknown) => v === '' || v === 0 || v === false || v === undefined || v === null;

/** The converters of every message type of `root` under `namespace`, keyed by message name. */
export function jsonShapers(root: protobuf.Root, namespace = 'k8s'): Map<string, Convert> {
  const rules = jsonRules();
  const ns = root.lookup(namespace) as protobuf.Namespace;
  const out = new Map<string, Convert>();
  const plans = new Map<string, FieldPlan[]>();
  // Converters look their plan up lazily, so that messages may refer to each other in any order.
  const converterOf = (type: protobuf.Type): Convert => {
    const special = SPECIAL[type.name];
    if (special) return special;
    let fields: FieldPlan[] | undefined;
    return (msg) => {
      fields ??= plans.get(type.name)!;
      return shape(fields, msg);
    };
  };
  for (const type of ns.nestedArray as protobuf.Type[]) {
    type.resolveAll();
    const typeRules = rules.get(type.name)!;
    const plan = type.fieldsArray.map((f): FieldPlan => {
      const sub = f.resolvedType ? converterOf(f.resolvedType as protobuf.Type) : undefined;
      const kind = f.map ? 'map' : f.repeated ? 'repeated' : sub ? 'message' : 'scalar';
      const zero =
        kind === 'map'
          ? () => ({})
          : kind === 'repeated'
            ? () => []
            : sub
              ? () => sub((f.resolvedType as protobuf.Type).create() as unknown as Decoded)
              : () => f.typeDefault;
      return { name: f.name, rule: typeRules.get(f.name) ?? 'omit', kind, convert: sub, zero };
    });
    plans.set(type.name, plan);
    out.set(type.name, converterOf(type));
  }
  return out;
}

function shape(fields: readonly FieldPlan[], msg: Decoded): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = msg[f.name];
    switch (f.kind) {
      case 'scalar':
        if (f.rule === 'ptr' ? !Object.hasOwn(msg, f.name) : isZeroScalar(v)) {
          if (f.rule === 'always') out[f.name] = f.zero();
          continue;
        }
        out[f.name] = v;
        break;
      case 'message':
        if (!Object.hasOwn(msg, f.name) || v == null) {
          if (f.rule === 'always') out[f.name] = f.zero();
          continue;
        }
        out[f.name] = f.convert!(v as Decoded);
        break;
      case 'repeated': {
        const a = v as unknown[];
        if (a.length === 0) {
          if (f.rule === 'always') out[f.name] = [];
          continue;
        }
        out[f.name] = f.convert ? a.map((x) => f.convert!(x as Decoded)) : a;
        break;
      }
      case 'map': {
        const m = v as Record<string, unknown>;
        let any = false;
        for (const _ in m) {
          any = true;
          break;
        }
        if (!any) {
          if (f.rule === 'always') out[f.name] = {};
          continue;
        }
        if (!f.convert) {
          out[f.name] = m;
          break;
        }
        const o: Record<string, unknown> = {};
        for (const k in m) o[k] = f.convert(m[k] as Decoded);
        out[f.name] = o;
        break;
      }
    }
  }
  return out;
}
