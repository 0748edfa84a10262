import { describe, expect, it } from 'vitest';

describe('platform', () => {
  it('runs on Node 24 (the repo pins it through the node devDependency)', () => {
    console.log(`process.version = ${process.version}`);
    expect(process.version).toMatch(/^v24\./);
  });

  it('loads @kubernetes/client-node 2.x', async () => {
    const k8s = await import('@kubernetes/client-node');
    expect(typeof k8s.KubeConfig).toBe('function');
    expect(typeof k8s.CoreV1Api).toBe('function');
    expect(k8s.PatchStrategy.StrategicMergePatch).toBe('application/strategic-merge-patch+json');
  });
});
