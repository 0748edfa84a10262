/**
 * Checks a Service against its provider's load-balancer capability declaration (beyond upstream: upstream
 * passes every Service to the provider, which ignores what it does not support). Pure functions; the service
 * controller calls {@link checkServiceCapabilities} before any cloud call of the ensure path.
 *
 * Only a field whose loss would leave the load balancer **less restrictive** than the Service asks refuses the
 * Service: `loadBalancerSourceRanges` (and its annotation), since without them every client can connect. Every
 * other unsupported field makes the load balancer do less than asked, never admit more, so it is a warning
 * (docs/decisions/0205-service-unsupported-fields-refused.md; the table is docs/service-capabilities.md).
 */
import {
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  getLoadBalancerSourceRanges,
  type LoadBalancerCapabilities,
} from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';

/** Event reason of both outcomes (a refusal and a warning) on the Service. */
export const REASON_UNSUPPORTED_SERVICE_FIELD = 'UnsupportedServiceField';

/** One Service field the provider does not support. */
export interface UnsupportedServiceField {
  /** The field's path, for example `spec.loadBalancerSourceRanges` or `spec.ports[1].protocol`. */
  readonly field: string;
  /** What the Service asks, for example `10.0.0.0/8` or `SCTP`. */
  readonly value: string;
  /** What the load balancer would do instead, in words. */
  readonly consequence: string;
  /** True when the load balancer would be less restrictive than asked: the Service is refused. */
  readonly refuse: boolean;
}

/**
 * Every field of `service` its provider does not support, in the order of the Service spec, refusals first.
 * Returns `[]` when `capabilities` is `undefined` (no declaration: upstream behaviour) and for members the
 * declaration leaves out.
 */
export function checkServiceCapabilities(
  service: V1Service,
  capabilities: LoadBalancerCapabilities | undefined,
): UnsupportedServiceField[] {
  if (capabilities === undefined) return [];
  const out: UnsupportedServiceField[] = [];
  if (capabilities.loadBalancerSourceRanges === false) {
    const ranges = requestedSourceRanges(service);
    if (ranges !== undefined) out.push(ranges);
  }
  out.push(...protocolProblems(service, capabilities));
  const spec = service.spec ?? {};
  if (capabilities.externalTrafficPolicyLocal === false && spec.externalTrafficPolicy === 'Local') {
    out.push({
      field: 'spec.externalTrafficPolicy',
      value: 'Local',
      consequence:
        'the load balancer does not check spec.healthCheckNodePort and also sends traffic to nodes without a ready endpoint, where it is dropped',
      refuse: false,
    });
  }
  out.push(...familyProblems(service, capabilities));
  const ip = spec.loadBalancerIP?.trim() ?? '';
  if (capabilities.loadBalancerIP === false && ip !== '') {
    out.push({
      field: 'spec.loadBalancerIP',
      value: ip,
      consequence: 'the load balancer gets an address the provider picks',
      refuse: false,
    });
  }
  if (capabilities.allocateLoadBalancerNodePortsFalse === false && spec.allocateLoadBalancerNodePorts === false) {
    const without = (spec.ports ?? []).flatMap((p, i) => (p.nodePort ? [] : [portLabel(p, i)]));
    if (without.length > 0) {
      out.push({
        field: 'spec.allocateLoadBalancerNodePorts',
        value: 'false',
        consequence: `the load balancer forwards to node ports, and ${without.join(', ')} has none`,
        refuse: false,
      });
    }
  }
  if (capabilities.sessionAffinityClientIP === false && spec.sessionAffinity === 'ClientIP') {
    out.push({
      field: 'spec.sessionAffinity',
      value: 'ClientIP',
      consequence: 'the load balancer spreads one client over the nodes (kube-proxy still keeps its affinity)',
      refuse: false,
    });
  }
  return out;
}

/**
 * The source ranges the Service asks for when they restrict anyone, as upstream `GetLoadBalancerSourceRanges`
 * reads them (the field, else the annotation). `undefined` when it asks for none, or when they admit every
 * address of each of the Service's families (`0.0.0.0/0`, and `::/0` with IPv6). Ranges that do not parse are
 * a request too: the Service asks for a restriction the provider could not enforce anyway.
 */
function requestedSourceRanges(service: V1Service): UnsupportedServiceField | undefined {
  const spec = service.spec?.loadBalancerSourceRanges ?? [];
  const fromSpec = spec.length > 0;
  const annotation = (service.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_SOURCE_RANGES] ?? '').trim();
  if (!fromSpec && annotation === '') return undefined;
  const field = fromSpec
    ? 'spec.loadBalancerSourceRanges'
    : `metadata.annotations[${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}]`;
  const value = fromSpec ? spec.map((s) => s.trim()).join(',') : annotation;
  const consequence = 'the load balancer would accept clients from every address';
  let ranges: Set<string>;
  try {
    ranges = getLoadBalancerSourceRanges(service);
  } catch {
    return { field, value, consequence, refuse: true };
  }
  const families = service.spec?.ipFamilies?.length ? service.spec.ipFamilies : ['IPv4'];
  const open = families.every((f) => ranges.has(f === 'IPv6' ? '::/0' : '0.0.0.0/0'));
  return open ? undefined : { field, value, consequence, refuse: true };
}

function portLabel(port: { name?: string }, i: number): string {
  return port.name ? `port ${JSON.stringify(port.name)}` : `ports[${i}]`;
}

function protocolProblems(service: V1Service, capabilities: LoadBalancerCapabilities): UnsupportedServiceField[] {
  const out: UnsupportedServiceField[] = [];
  const ports = service.spec?.ports ?? [];
  const used = new Set<string>();
  ports.forEach((p, i) => {
    const protocol = p.protocol ?? 'TCP';
    used.add(protocol);
    if (capabilities.protocols !== undefined && !(capabilities.protocols as readonly string[]).includes(protocol)) {
      out.push({
        field: `spec.ports[${i}].protocol`,
        value: protocol,
        consequence: `${portLabel(p, i)} is not served (the provider serves ${capabilities.protocols.join(', ') || 'no protocol'})`,
        refuse: false,
      });
    }
  });
  if (capabilities.mixedProtocols === false && used.size > 1) {
    out.push({
      field: 'spec.ports',
      value: [...used].join(','),
      consequence: 'one load balancer serves one protocol; ports of the others are not served',
      refuse: false,
    });
  }
  return out;
}

function familyProblems(service: V1Service, capabilities: LoadBalancerCapabilities): UnsupportedServiceField[] {
  const out: UnsupportedServiceField[] = [];
  const families = service.spec?.ipFamilies ?? [];
  const supported = capabilities.ipFamilies as readonly string[] | undefined;
  families.forEach((family, i) => {
    if (supported !== undefined && !supported.includes(family)) {
      out.push({
        field: `spec.ipFamilies[${i}]`,
        value: family,
        consequence: `the load balancer gets no ${family} address`,
        refuse: false,
      });
    }
  });
  if (capabilities.dualStack === false && families.length > 1) {
    out.push({
      field: 'spec.ipFamilyPolicy',
      value: service.spec?.ipFamilyPolicy ?? '',
      consequence: `the load balancer gets an address of one family only (${families[0]})`,
      refuse: false,
    });
  }
  return out;
}

/**
 * The Warning Event message for `fields` (all of them, refusals and warnings) of a Service sent to `provider`:
 * - refused: `Refusing to ensure a load balancer: provider "<p>" does not support <field>=<value> (<consequence>); …
 *   No load balancer is created or changed until the Service no longer asks for it.`
 * - otherwise: `Provider "<p>" does not support <field>=<value> (<consequence>); …; ensuring the load balancer without it`.
 */
export function unsupportedFieldsMessage(provider: string, fields: readonly UnsupportedServiceField[]): string {
  const list = fields.map((f) => `${f.field}=${f.value} (${f.consequence})`).join('; ');
  const name = JSON.stringify(provider);
  if (fields.some((f) => f.refuse)) {
    return `Refusing to ensure a load balancer: provider ${name} does not support ${list}. No load balancer is created or changed until the Service no longer asks for it`;
  }
  return `Provider ${name} does not support ${list}; ensuring the load balancer without it`;
}
