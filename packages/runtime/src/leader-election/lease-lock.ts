/**
 * A resource lock on a coordination.k8s.io/v1 Lease (client-go `resourcelock.LeaseLock`). `update`
 * writes with the resourceVersion of the Lease last read or written, so a concurrent writer makes it
 * fail with 409 Conflict (optimistic concurrency).
 */
import type { CoordinationV1Api, V1Lease } from '@kubernetes/client-node';
import { callOptions } from '@ccm-kit/cloud-provider/internal';
import { type LeaderElectionRecord, leaseSpecFromRecord, recordFromLease } from './record.js';

/** The three Lease calls the lock makes (a `CoordinationV1Api` satisfies it). */
export type LeaseClient = Pick<
  CoordinationV1Api,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

/** The lock on one Lease; see the module notes. */
export class LeaseLock {
  /** The Lease's namespace. */
  readonly namespace: string;
  /** The Lease's name. */
  readonly name: string;
  readonly #client: LeaseClient;
  #lease: V1Lease | undefined;

  /** @throws Error naming `namespace` or `name` when empty. */
  constructor(client: LeaseClient, namespace: string, name: string) {
    if (!namespace) throw new Error('lock.namespace: required');
    if (!name) throw new Error('lock.name: required');
    this.#client = client;
    this.namespace = namespace;
    this.name = name;
  }

  /** `namespace/name`, for logs. */
  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** True once a Lease has been read or written (so {@link update} can be tried). */
  hasLease(): boolean {
    return this.#lease !== undefined;
  }

  /** Reads the Lease. @throws the API error (404 when it does not exist). */
  async get(signal?: AbortSignal): Promise<LeaderElectionRecord> {
    const lease = await this.#client.readNamespacedLease(
      { name: this.name, namespace: this.namespace },
      callOptions(signal ? { signal } : {}),
    );
    this.#lease = lease;
    return recordFromLease(lease);
  }

  /** Creates the Lease. @throws the API error (409 AlreadyExists when another candidate was first). */
  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.#lease = await this.#client.createNamespacedLease(
      {
        namespace: this.namespace,
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.name, namespace: this.namespace },
          spec: leaseSpecFromRecord(record),
        },
      },
      callOptions(signal ? { signal } : {}),
    );
  }

  /**
   * Replaces the Lease's record, conditional on the resourceVersion last seen.
   * @throws Error when the Lease was never read or created; the API error (409 Conflict when it changed).
   */
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const cur = this.#lease;
    if (!cur) throw new Error(`lease ${this.describe()} not initialized; get or create it first`);
    const body: V1Lease = { ...cur, spec: { ...cur.spec, ...leaseSpecFromRecord(record) } };
    this.#lease = await this.#client.replaceNamespacedLease(
      { name: this.name, namespace: this.namespace, body },
      callOptions(signal ? { signal } : {}),
    );
  }
}
