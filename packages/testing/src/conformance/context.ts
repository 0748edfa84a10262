/**
 * What one conformance check works with: the fixture, a live AbortSignal, time-limited provider calls
 * that turn failures into {@link ConformanceViolation}s naming the call, the outage switch, and the
 * load-balancer and route inputs.
 */
import { randomUUID } from 'node:crypto';
import { type CloudProvider, type FacetInterfaces, type FacetName, facetOf, type Route } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { ProviderConformanceOptions, ProviderFixture, ResolvedTimeouts } from './options.js';
import { CallTimeoutError, within } from './retry.js';
import { ConformanceViolation, describeError, type Outcome } from './violation.js';

/** The default destination CIDR of the routes checks. */
export const DEFAULT_ROUTE_CIDR = '10.244.250.0/24';

/** The default Service of the load-balancer checks: TCP port 80, a random UID. */
export function defaultConformanceService(seq: number): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: `conformance-${seq}`,
      namespace: 'default',
      uid: randomUUID(),
      creationTimestamp: new Date(),
      annotations: {},
    },
    spec: {
      type: 'LoadBalancer',
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
      externalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    },
  };
}

/** Everything a check needs; built fresh for each check by the harness. */
export class CheckContext<F extends ProviderFixture = ProviderFixture> {
  readonly id: string;
  readonly fixture: F;
  readonly cloud: CloudProvider;
  readonly clusterName: string;
  readonly timeouts: ResolvedTimeouts;
  /** Passed to every provider call; aborts when the check ends. */
  readonly signal: AbortSignal;
  readonly #options: ProviderConformanceOptions<F>;
  #services = 0;
  #broken = false;

  constructor(args: {
    id: string;
    fixture: F;
    options: ProviderConformanceOptions<F>;
    timeouts: ResolvedTimeouts;
    clusterName: string;
    signal: AbortSignal;
  }) {
    this.id = args.id;
    this.fixture = args.fixture;
    this.cloud = args.fixture.cloud;
    this.clusterName = args.clusterName;
    this.timeouts = args.timeouts;
    this.signal = args.signal;
    this.#options = args.options;
  }

  /** Fails the check. */
  fail(message: string, cause?: unknown): never {
    throw new ConformanceViolation(this.id, message, cause === undefined ? undefined : { cause });
  }

  /** Fails the check unless `condition` holds. */
  require(condition: boolean, message: string): asserts condition {
    if (!condition) this.fail(message);
  }

  /** The facet object, failing when the accessor no longer returns one (it did when the suite was planned). */
  facet<K extends FacetName>(accessor: K): FacetInterfaces[K] {
    const facet = facetOf(this.cloud, accessor);
    if (facet === undefined) {
      this.fail(`${accessor}() returned undefined, but it returned a facet when the suite was planned`);
    }
    return facet;
  }

  /**
   * Runs one provider call that must succeed (bounded by `timeouts.callMs`).
   * @throws ConformanceViolation naming `label` when it rejects or does not settle in time.
   */
  async call<T>(label: string, fn: () => Promise<T>): Promise<T> {
    const result = await this.attempt(label, fn);
    if (!result.ok) this.fail(`${label} rejected: ${describeError(result.error)}`, result.error);
    return result.value;
  }

  /**
   * Runs one provider call that may reject; only a call that does not settle in time fails the check.
   * A synchronous throw counts as a rejection.
   */
  async attempt<T>(label: string, fn: () => Promise<T>): Promise<Outcome<T>> {
    try {
      return { ok: true, value: await within(label, this.timeouts.callMs, Promise.resolve().then(fn)) };
    } catch (error) {
      if (error instanceof CallTimeoutError) {
        this.fail(`${error.message} (timeouts.callMs); a cloud call must not hang`, error);
      }
      return { ok: false, error };
    }
  }

  /** Starts the fixture's outage; the harness heals it if the check ends while broken. */
  async breakCloud(): Promise<void> {
    const { breakCloud } = this.fixture;
    if (breakCloud === undefined) this.fail('internal: breakCloud called without a fixture breakCloud');
    this.#broken = true;
    await within('breakCloud()', this.timeouts.setupMs, Promise.resolve().then(breakCloud));
  }

  /** Ends the outage. */
  async healCloud(): Promise<void> {
    const { healCloud } = this.fixture;
    if (healCloud === undefined) this.fail('internal: healCloud called without a fixture healCloud');
    await within('healCloud()', this.timeouts.setupMs, Promise.resolve().then(healCloud));
    this.#broken = false;
  }

  /** True between {@link breakCloud} and {@link healCloud}. */
  get broken(): boolean {
    return this.#broken;
  }

  /** A new LoadBalancer Service (`loadBalancer.service` or {@link defaultConformanceService}). */
  async newService(): Promise<V1Service> {
    const seq = this.#services++;
    const make = this.#options.loadBalancer?.service;
    const service = make ? await make(this.fixture, seq) : defaultConformanceService(seq);
    if (!service?.metadata?.name || !service.metadata.uid) {
      this.fail('loadBalancer.service() must return a Service with metadata.name and metadata.uid');
    }
    return service;
  }

  /** The Nodes to balance over (`loadBalancer.nodes`, else `[existingNode]`). */
  lbNodes(): V1Node[] {
    const make = this.#options.loadBalancer?.nodes;
    if (make) return make(this.fixture);
    return this.fixture.existingNode ? [this.fixture.existingNode] : [];
  }

  /** The route to create (`routes.route`, else one to the existing Node). */
  route(): Route {
    const make = this.#options.routes?.route;
    if (make) return make(this.fixture);
    return {
      targetNode: this.fixture.existingNode?.metadata?.name ?? '',
      destinationCIDR: DEFAULT_ROUTE_CIDR,
    };
  }
}
