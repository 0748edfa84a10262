/**
 * Capability checks: what a LoadBalancer facet declares in `capabilities` (docs/service-capabilities.md) it must
 * honour. A capability declared `true` (or a listed protocol, family or ipMode) means the service controller sends
 * Services using it to `ensureLoadBalancer`, so the provider must accept them and report a fitting status. A
 * capability declared `false` never reaches the provider with a Service using it (the controller refuses or
 * warns first), so there is nothing to check at the provider. Not checked: `loadBalancerIP` (the suite does not
 * know an address your cloud would give).
 */
import { type LoadBalancerCapabilities, parseIP, validateLoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { type LoadBalancerDriver, lbCheck, svcName } from './load-balancer.js';
import { show } from './violation.js';

type Spec = NonNullable<V1Service['spec']>;

/** A new Service of the check (`loadBalancer.service`), with `spec` merged over its spec. */
async function serviceWith(ctx: CheckContext, spec: Partial<Spec>): Promise<V1Service> {
  const svc = await ctx.newService();
  svc.spec = { ...svc.spec, ...spec };
  return svc;
}

function port(protocol: string, n: number, nodePort?: number): V1ServicePort {
  return {
    name: `${protocol.toLowerCase()}-${n}`,
    protocol,
    port: n,
    targetPort: n,
    ...(nodePort !== undefined ? { nodePort } : {}),
  };
}

/** The family of each ingress `ip` of `status` (hostnames have none). */
function ingressFamilies(status: V1LoadBalancerStatus): string[] {
  return (status.ingress ?? []).flatMap((e) => {
    const ip = e.ip ? parseIP(e.ip) : undefined;
    if (ip === undefined) return [];
    return [e.ip!.includes(':') ? 'IPv6' : 'IPv4'];
  });
}

function capabilityCheck(
  id: string,
  title: string,
  body: (ctx: CheckContext, lb: LoadBalancerDriver, caps: LoadBalancerCapabilities) => Promise<void>,
): CheckSpec {
  return lbCheck(`capability-${id}`, title, async (ctx: CheckContext, lb: LoadBalancerDriver) => {
    const caps = ctx.facet('loadBalancer').capabilities;
    ctx.require(caps !== undefined, 'LoadBalancer.capabilities is gone; it was declared when the suite was planned');
    await body(ctx, lb, caps);
  });
}

/** The checks for the declared capabilities of the LoadBalancer facet (none without a declaration). */
export function capabilityChecks(probe: ProviderProbe): CheckSpec[] {
  const caps = probe.lbCapabilities;
  if (caps === undefined) return [];
  const checks: CheckSpec[] = [
    lbCheck('capabilities', 'the capabilities declaration is well-formed', async (ctx: CheckContext) => {
      try {
        validateLoadBalancerCapabilities(ctx.facet('loadBalancer').capabilities, probe.providerName);
      } catch (err) {
        ctx.fail(`${(err as Error).message} (the service controller would refuse to start)`, err);
      }
    }),
  ];
  if (!isWellFormed(caps, probe.providerName)) return checks;
  if (caps.protocols?.length) {
    checks.push(
      capabilityCheck(
        'protocols',
        `ensureLoadBalancer accepts a port of each declared protocol (${caps.protocols.join(', ')})`,
        async (ctx: CheckContext, lb: LoadBalancerDriver, c: LoadBalancerCapabilities) => {
          for (const [i, protocol] of (c.protocols ?? []).entries()) {
            await lb.ensure(await serviceWith(ctx, { ports: [port(protocol, 80, 30080 + i)] }));
          }
        },
      ),
    );
  }
  if (caps.mixedProtocols === true) {
    const [a = 'TCP', b = a === 'TCP' ? 'UDP' : 'TCP'] = caps.protocols ?? [];
    checks.push(
      capabilityCheck(
        'mixed-protocols',
        `ensureLoadBalancer accepts one Service with ${a} and ${b} ports (mixedProtocols)`,
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          await lb.ensure(await serviceWith(ctx, { ports: [port(a, 53, 30053), port(b, 53, 30054)] }));
        },
      ),
    );
  }
  if (caps.loadBalancerSourceRanges === true) {
    checks.push(
      capabilityCheck(
        'source-ranges',
        'ensureLoadBalancer accepts spec.loadBalancerSourceRanges and the source-ranges annotation',
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          await lb.ensure(await serviceWith(ctx, { loadBalancerSourceRanges: ['192.0.2.0/24', '198.51.100.0/24'] }));
          const annotated = await ctx.newService();
          annotated.metadata = {
            ...annotated.metadata,
            annotations: {
              ...annotated.metadata?.annotations,
              'service.beta.kubernetes.io/load-balancer-source-ranges': '203.0.113.0/24',
            },
          };
          await lb.ensure(annotated);
        },
      ),
    );
  }
  if (caps.externalTrafficPolicyLocal === true) {
    checks.push(
      capabilityCheck(
        'external-traffic-policy-local',
        'ensureLoadBalancer accepts externalTrafficPolicy: Local with a healthCheckNodePort',
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          await lb.ensure(await serviceWith(ctx, { externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 }));
        },
      ),
    );
  }
  if (caps.ipFamilies?.length) {
    checks.push(
      capabilityCheck(
        'ip-families',
        `each declared IP family (${caps.ipFamilies.join(', ')}) gets an address of that family`,
        async (ctx: CheckContext, lb: LoadBalancerDriver, c: LoadBalancerCapabilities) => {
          for (const family of c.ipFamilies ?? []) {
            const svc = await serviceWith(ctx, { ipFamilies: [family], ipFamilyPolicy: 'SingleStack' });
            const status = await lb.ensure(svc);
            const wrong = ingressFamilies(status).filter((f) => f !== family);
            ctx.require(
              wrong.length === 0,
              `ensureLoadBalancer(${svcName(svc)}) with ipFamilies [${family}] returned ingress ${show(status.ingress)}`,
            );
          }
        },
      ),
    );
  }
  if (caps.dualStack === true) {
    checks.push(
      capabilityCheck(
        'dual-stack',
        'a RequireDualStack Service gets an address of each family',
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          const svc = await serviceWith(ctx, { ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' });
          const status = await lb.ensure(svc);
          const families = new Set(ingressFamilies(status));
          ctx.require(
            families.size === 0 || families.size === 2,
            `ensureLoadBalancer(${svcName(svc)}) with ipFamilies [IPv4, IPv6] (RequireDualStack) returned ingress ${show(status.ingress)}: one family only`,
          );
        },
      ),
    );
  }
  if (caps.allocateLoadBalancerNodePortsFalse === true) {
    checks.push(
      capabilityCheck(
        'allocate-load-balancer-node-ports-false',
        'ensureLoadBalancer accepts ports without nodePort (allocateLoadBalancerNodePorts: false)',
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          const svc = await ctx.newService();
          svc.spec = {
            ...svc.spec,
            allocateLoadBalancerNodePorts: false,
            ports: (svc.spec?.ports ?? [port('TCP', 80)]).map(({ nodePort: _, ...p }) => p),
          };
          await lb.ensure(svc);
        },
      ),
    );
  }
  if (caps.sessionAffinityClientIP === true) {
    checks.push(
      capabilityCheck(
        'session-affinity',
        'ensureLoadBalancer accepts sessionAffinity: ClientIP',
        async (ctx: CheckContext, lb: LoadBalancerDriver) => {
          await lb.ensure(
            await serviceWith(ctx, {
              sessionAffinity: 'ClientIP',
              sessionAffinityConfig: { clientIP: { timeoutSeconds: 10_800 } },
            }),
          );
        },
      ),
    );
  }
  if (caps.ipModes !== undefined) {
    checks.push(
      capabilityCheck(
        'ip-modes',
        `statuses report only the declared ipModes (${caps.ipModes.join(', ') || 'none'}; unset counts as VIP)`,
        async (ctx: CheckContext, lb: LoadBalancerDriver, c: LoadBalancerCapabilities) => {
          const svc = await ctx.newService();
          const status = await lb.ensure(svc);
          const modes = (status.ingress ?? []).map((e) => e.ipMode ?? 'VIP');
          const undeclared = modes.filter((m) => !(c.ipModes as readonly string[]).includes(m));
          ctx.require(
            undeclared.length === 0,
            `ensureLoadBalancer(${svcName(svc)}) returned ipMode ${show(undeclared[0])}, not declared in capabilities.ipModes ${show(c.ipModes)}`,
          );
        },
      ),
    );
  }
  return checks;
}

function isWellFormed(caps: LoadBalancerCapabilities, provider: string): boolean {
  try {
    validateLoadBalancerCapabilities(caps, provider);
    return true;
  } catch {
    return false;
  }
}
