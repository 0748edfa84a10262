import { describe, expect, it } from 'vitest';
import { NODE_PORTS_PER_SERVICE, serviceNodePortRange } from '../compare/node-port-range.ts';

const size = (range: string) => {
  const [min, max] = range.split('-').map(Number);
  return max! - min! + 1;
};

describe('serviceNodePortRange', () => {
  it('gives each benchmark Service two NodePorts', () => {
    expect(NODE_PORTS_PER_SERVICE).toBe(2);
  });

  it("keeps kube-apiserver's default while the Services fit (1,384 with two ports)", () => {
    expect(serviceNodePortRange(0)).toBe('30000-32767');
    expect(serviceNodePortRange(1000)).toBe('30000-32767');
    expect(serviceNodePortRange(1384)).toBe('30000-32767');
  });

  it('widens from 30000 to the ports needed plus a tenth', () => {
    expect(serviceNodePortRange(1385)).toBe(`30000-${30000 + Math.ceil(2770 * 1.1) - 1}`);
    // --w8=20000:2000 failed with "range is full" under the default; 50,000:2,500 is the largest W8 planned.
    for (const services of [2000, 2500, 10000]) {
      const r = serviceNodePortRange(services);
      expect(size(r)).toBeGreaterThanOrEqual(services * 2 * 1.1);
      expect(Number(r.split('-')[1])).toBeLessThanOrEqual(65535);
    }
    expect(serviceNodePortRange(2500)).toBe('30000-35499');
  });

  it('ends at 65535 at most and names the count beyond it', () => {
    expect(serviceNodePortRange(16152)).toBe('30000-65534');
    expect(() => serviceNodePortRange(16153)).toThrow(/16153 LoadBalancer Services need 32306 NodePorts/);
  });
});
