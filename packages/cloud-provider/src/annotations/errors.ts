/**
 * What is wrong with a Service's annotations: one {@link AnnotationProblem} per annotation, gathered into an
 * {@link InvalidAnnotationError} that a provider throws from `ensureLoadBalancer`/`updateLoadBalancer` before it
 * changes anything. The service controller turns it into a Warning Event on the Service (reason
 * `SyncLoadBalancerFailed` or `UpdateLoadBalancerFailed`, the message carrying every problem) and requeues the
 * Service with backoff; the load balancer keeps its last good configuration
 * (k8s.io/cloud-provider controllers/service/controller.go `processServiceCreateOrUpdate`).
 */

/** One invalid annotation. */
export interface AnnotationProblem {
  /** The annotation key. */
  readonly annotation: string;
  /** The value found on the Service. */
  readonly value: string;
  /** The expected form in words, for example `an integer from 1 to 10`. */
  readonly expected: string;
  /** One line for a person: `annotation <name>: "<value>" is not <expected>` (or a more specific reason). */
  readonly message: string;
}

/** Thrown when a Service carries invalid annotations; `problems` lists each of them. */
export class InvalidAnnotationError extends Error {
  constructor(
    /** Each invalid annotation of the Service, in declaration order; never empty. */
    readonly problems: readonly AnnotationProblem[],
    /** `namespace/name` of the Service, when known. */
    readonly service?: string,
  ) {
    const where = service ? ` on service ${service}` : '';
    super(`invalid annotations${where}: ${problems.map((p) => p.message).join('; ')}`);
    this.name = 'InvalidAnnotationError';
  }
}
