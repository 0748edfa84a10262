import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ConvergenceObserver } from '../compare/observer.ts';

describe('ConvergenceObserver.waitAll', () => {
  it('ends when the observer is stopped, so a failed run does not hold the harness until its timeout', async () => {
    const o = new ConvergenceObserver(new KubeConfig(), '/api/v1/nodes', () => true);
    o.expect(['bench-node-00000']);
    const wait = o.waitAll(3_600_000);
    o.stop();
    await expect(wait).rejects.toThrow('observer stopped: 0 of 1 converged');
  });
});
