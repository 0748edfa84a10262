/** The original's derived names and strings (formatLBName, buildExternalServiceName, portsChanged, isValidToActivate). */
import { loadBalancerService } from '@ccm-kit/testing';
import { describe, expect, it } from 'vitest';
import { balancerName, externalServiceName, launchPorts, portsChanged } from '../src/index.js';
import { needsActivation, servedPorts } from '../src/provider/names.js';

describe('names', () => {
  it('a balancer is lb- and the default load-balancer name', () => {
    const svc = loadBalancerService('web', { uid: '1f2e-3d4c' });
    expect(balancerName(svc)).toBe('lb-a1f2e3d4c');
  });

  it.each([
    ['node-1', 'node-1'],
    ['Node_1.Example.com', 'Node-1-Example-com'],
    ['--a..b--', 'a-b'],
    ['é-host', 'host'],
    ['x'.repeat(70), 'x'.repeat(63)],
  ])('external service for Node %s is %s', (nodeName, expected) => {
    expect(externalServiceName(nodeName)).toBe(expected);
  });

  it('launch ports are <port>:<port>/tcp of TCP ports with a node port; the others are skipped', () => {
    const svc = loadBalancerService('web', {
      ports: [
        { port: 80, nodePort: 30080 },
        { port: 443, protocol: 'TCP', nodePort: 30443 },
        { port: 53, protocol: 'UDP', nodePort: 30053 },
        { port: 8080, protocol: 'TCP' },
      ],
    });
    const { served, skipped } = servedPorts(svc);
    expect(launchPorts(served)).toEqual(['80:80/tcp', '443:443/tcp']);
    expect(skipped.map((p) => p.port)).toEqual([53, 8080]);
  });

  it('ports changed: compared as sets', () => {
    expect(portsChanged(['80:80/tcp', '443:443/tcp'], ['443:443/tcp', '80:80/tcp'])).toBe(false);
    expect(portsChanged(['80:80/tcp'], ['80:80/tcp', '443:443/tcp'])).toBe(true);
    expect(portsChanged(['81:81/tcp'], ['80:80/tcp'])).toBe(true);
    expect(portsChanged([], undefined)).toBe(false);
  });

  it('only services not already active or on their way need activate', () => {
    expect(['inactive', 'registering', undefined].map(needsActivation)).toEqual([true, true, true]);
    expect(['active', 'Activating', 'updating-active'].map(needsActivation)).toEqual([false, false, false]);
  });
});
