/**
 * The history of the Lease `kube-system/cloud-controller-manager`, polled every 200 ms, turned into terms:
 * who held the lease from when to when. A holder's term starts at the lease's `acquireTime` and ends at the
 * next holder's `acquireTime`, at a release, or a lease duration after the last renewal seen, whichever
 * comes first. (Processes run on this machine, so their clocks are the harness' clock.)
 */
import { callOptions } from '@ccm-kit/runtime';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';

interface Sample {
  holder: string;
  acquireTime: number;
  renewTime: number;
  leaseDurationMs: number;
  observedAt: number;
}

export interface Term {
  holder: string;
  start: number;
  end: number;
}

const ms = (t: unknown): number => (t instanceof Date ? t.getTime() : t ? new Date(String(t)).getTime() : 0);

export class LeaseHistory {
  readonly #samples: Sample[] = [];
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
        const s = l.spec ?? {};
        this.#samples.push({
          holder: s.holderIdentity ?? '',
          acquireTime: ms(s.acquireTime),
          renewTime: ms(s.renewTime),
          leaseDurationMs: (s.leaseDurationSeconds ?? 0) * 1000,
          observedAt: Date.now(),
        });
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
    return this.#samples.at(-1)?.holder ?? '';
  }

  terms(): Term[] {
    const terms: Term[] = [];
    let cur: (Term & { lastRenew: number; duration: number }) | undefined;
    const close = (at: number) => {
      if (cur) terms.push({ holder: cur.holder, start: cur.start, end: Math.min(at, cur.lastRenew + cur.duration) });
      cur = undefined;
    };
    for (const s of this.#samples) {
      if (cur && s.holder === cur.holder) {
        cur.lastRenew = Math.max(cur.lastRenew, s.renewTime);
        continue;
      }
      if (s.holder === '') {
        close(s.renewTime || s.observedAt); // released: the release wrote renewTime
        continue;
      }
      // A new holder writes a fresh acquireTime; should one not, its term starts when it was first seen.
      const start = cur && s.acquireTime <= cur.start ? s.observedAt : s.acquireTime;
      close(start);
      cur = { holder: s.holder, start, end: 0, lastRenew: s.renewTime, duration: s.leaseDurationMs };
    }
    close(Number.POSITIVE_INFINITY);
    return terms;
  }

  /** Whether `identity` held the lease at epoch ms `t`. */
  static held(terms: readonly Term[], identity: string, t: number): boolean {
    return terms.some((x) => x.holder === identity && x.start <= t && t <= x.end);
  }
}
