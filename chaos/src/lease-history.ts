/**
 * The Lease `kube-system/cloud-controller-manager`: its current holder, polled every 200 ms (to aim leader
 * faults), and its terms — who held it from when to when — from the audit log of its writes
 * ({@link termsFromAudit}). (Everything runs on this machine, so all clocks are one.)
 */
import { callOptions } from '@ccm-kit/runtime/client';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';

export interface Term {
  holder: string;
  start: number;
  end: number;
}

export class LeaseHistory {
  #holder = '';
  readonly #api: CoordinationV1Api;
  #timer: NodeJS.Timeout | undefined;

  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CoordinationV1Api);
  }

  start(): void {
    const poll = async () => {
      try {
        const l = await this.#api.readNamespacedLease(
          { name: 'cloud-controller-manager', namespace: 'kube-system' },
          callOptions({ signal: AbortSignal.timeout(2_000) }),
        );
        this.#holder = l.spec?.holderIdentity ?? '';
      } catch {
        // API server down or lease not created yet: the terms are computed from what was seen.
      }
      this.#timer = setTimeout(() => void poll(), 200);
    };
    void poll();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  /** The current holder as last seen ('' when none). */
  currentHolder(): string {
    return this.#holder;
  }

  /** Whether `identity` held the lease at epoch ms `t`. */
  static held(terms: readonly Term[], identity: string, t: number): boolean {
    return terms.some((x) => x.holder === identity && x.start <= t && t <= x.end);
  }
}

interface LeaseWrite {
  holder: string;
  /** Epoch ms the API server received the write / completed it. */
  received: number;
  completed: number;
}

/**
 * The terms of the lease from the audit log of its successful writes (each names its holder): a holder's term
 * starts when its acquiring write completed, and ends when the next holder's acquiring write was received, at
 * its release, or a lease duration after its last renewal was received — whichever comes first. (The lease's
 * own `acquireTime` is no start: a candidate stamps it before a read that may take seconds.)
 */
export function termsFromAudit(auditLog: string, leaseDurationMs: number, lease = 'cloud-controller-manager'): Term[] {
  const writes: LeaseWrite[] = [];
  for (const line of auditLog.split('\n')) {
    if (!line.includes('"leases"')) continue;
    const e = JSON.parse(line) as {
      stage?: string;
      objectRef?: { resource?: string; name?: string; namespace?: string };
      responseStatus?: { code?: number };
      requestObject?: { spec?: { holderIdentity?: string } };
      requestReceivedTimestamp?: string;
      stageTimestamp?: string;
    };
    if (e.stage !== 'ResponseComplete' || e.objectRef?.resource !== 'leases' || e.objectRef.name !== lease) continue;
    if ((e.responseStatus?.code ?? 0) >= 300 || !e.requestObject) continue;
    writes.push({
      holder: e.requestObject.spec?.holderIdentity ?? '',
      received: new Date(e.requestReceivedTimestamp ?? 0).getTime(),
      completed: new Date(e.stageTimestamp ?? 0).getTime(),
    });
  }
  writes.sort((a, b) => a.completed - b.completed);
  const terms: Term[] = [];
  let cur: { holder: string; start: number; lastRenew: number } | undefined;
  const close = (at: number) => {
    if (cur) terms.push({ holder: cur.holder, start: cur.start, end: Math.min(at, cur.lastRenew + leaseDurationMs) });
    cur = undefined;
  };
  for (const w of writes) {
    if (cur && w.holder === cur.holder) {
      cur.lastRenew = w.received;
      continue;
    }
    close(w.received);
    if (w.holder !== '') cur = { holder: w.holder, start: w.completed, lastRenew: w.received };
  }
  close(Number.POSITIVE_INFINITY);
  return terms;
}
