import { describe, expect, it, vi } from 'vitest';
import { RECOVERY_RETRY_MS, RECOVERY_WINDOW_MS, ServerAnswers } from '../src/client/server-answers.js';

const never = () => new AbortController().signal;

describe('ServerAnswers', () => {
  it('a wait ends at the first healthy answer (< 500) after the server was unreachable', async () => {
    const answers = new ServerAnswers(async () => 503, 60_000);
    let done = false;
    const p = answers.waitForServer(60_000, never()).then(() => (done = true));
    answers.answered(200); // never unreachable: no reason to cut the backoff short
    answers.unreachable();
    answers.answered(503); // not healthy yet
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    answers.answered(401); // up, whatever it thinks of us
    await p;
    expect(done).toBe(true);
    answers.close();
  });

  it('a wait ends after its time, or when the signal aborts', async () => {
    const answers = new ServerAnswers(async () => 200, 60_000);
    const t0 = performance.now();
    await answers.waitForServer(30, never());
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    const ac = new AbortController();
    const p = answers.waitForServer(60_000, ac.signal);
    ac.abort();
    await p;
    answers.close();
  });

  it('probes every interval while someone waits, until the server answers healthy after being unreachable', async () => {
    const statuses = [0, 500, 200];
    let probes = 0;
    const answers = new ServerAnswers(async () => {
      const s = statuses[probes++] ?? 200;
      // As the transport does: report the outcome of the probe request.
      if (s === 0) {
        answers.unreachable();
        throw new Error('ECONNREFUSED');
      }
      answers.answered(s);
      return s;
    }, 10);
    const t0 = performance.now();
    await Promise.all([answers.waitForServer(60_000, never()), answers.waitForServer(60_000, never())]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(probes).toBe(3);
    await new Promise((r) => setTimeout(r, 50));
    expect(probes).toBe(3); // nobody waits: no more probes
    answers.close();
  });

  it('keeps retry delays short right after the server came back, and only then', () => {
    const answers = new ServerAnswers(async () => 200, 60_000);
    expect(answers.retryDelayMs(6_400)).toBe(6_400); // never lost: the backoff stands
    answers.unreachable();
    expect(answers.retryDelayMs(6_400)).toBe(6_400); // still down
    answers.answered(403); // a restarted server whose authorizer has not synced
    expect(answers.retryDelayMs(6_400)).toBe(RECOVERY_RETRY_MS);
    expect(answers.retryDelayMs(300)).toBe(300);
    const later = performance.now() + RECOVERY_WINDOW_MS + 1;
    const now = vi.spyOn(performance, 'now').mockReturnValue(later);
    try {
      expect(answers.retryDelayMs(6_400)).toBe(6_400); // the window is over
    } finally {
      now.mockRestore();
    }
    answers.close();
  });
});
