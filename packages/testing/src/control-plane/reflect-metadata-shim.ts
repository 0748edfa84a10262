/**
 * @peculiar/x509 depends on tsyringe, which refuses to load unless a Reflect metadata polyfill
 * (`reflect-metadata`) is installed. It only needs `Reflect.getMetadata`, `getOwnMetadata` and
 * `defineMetadata`, so this module supplies a minimal WeakMap-backed version of those three when
 * (and only when) no polyfill is present. Import {@link loadX509} instead of @peculiar/x509.
 */
type MetadataStore = WeakMap<object, Map<string | symbol | undefined, Map<unknown, unknown>>>;

interface ReflectMetadataApi {
  getMetadata?: (key: unknown, target: object, property?: string | symbol) => unknown;
  getOwnMetadata?: (key: unknown, target: object, property?: string | symbol) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: object, property?: string | symbol) => void;
}

function installMinimalReflectMetadata(): void {
  const r = Reflect as unknown as ReflectMetadataApi;
  if (typeof r.getMetadata === 'function') return;
  const store: MetadataStore = new WeakMap();
  const own = (target: object, property?: string | symbol) => store.get(target)?.get(property);
  r.defineMetadata = (key, value, target, property) => {
    let byProp = store.get(target);
    if (!byProp) {
      byProp = new Map();
      store.set(target, byProp);
    }
    let entries = byProp.get(property);
    if (!entries) {
      entries = new Map();
      byProp.set(property, entries);
    }
    entries.set(key, value);
  };
  r.getOwnMetadata = (key, target, property) => own(target, property)?.get(key);
  r.getMetadata = (key, target, property) => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t)) {
      const entries = own(t, property);
      if (entries?.has(key)) return entries.get(key);
    }
    return undefined;
  };
}

let x509Module: Promise<typeof import('@peculiar/x509')> | undefined;

/** Loads @peculiar/x509 after making sure the Reflect metadata functions it needs exist. */
export function loadX509(): Promise<typeof import('@peculiar/x509')> {
  if (!x509Module) {
    installMinimalReflectMetadata();
    x509Module = import('@peculiar/x509');
  }
  return x509Module;
}
