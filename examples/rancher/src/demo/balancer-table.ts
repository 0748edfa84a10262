/**
 * What the fake Cattle API holds for one balancer, as a table: each port rule with the external service (the
 * Node) and the address it points at.
 */
import { table } from '@ccm-kit/testing';
import type { FakeCattleState, Stored } from '../fake-cattle/index.js';
import type { PortRule } from '../cattle/types.js';

/** The balancer's port rules: `PORT  ->  EXTERNAL-SERVICE  ADDRESS  NODE-PORT`. */
export function portRuleTable(state: FakeCattleState, balancer: Stored): string {
  const rules = (balancer.lbConfig as { portRules?: PortRule[] } | undefined)?.portRules ?? [];
  return table(
    ['SOURCE-PORT', 'EXTERNAL-SERVICE', 'ADDRESS', 'TARGET-PORT', 'PROTOCOL'],
    rules.map((r) => {
      const ext = state.get(r.serviceId);
      return [
        String(r.sourcePort),
        String(ext?.name ?? r.serviceId),
        String((ext?.externalIpAddresses as string[] | undefined)?.[0] ?? '?'),
        String(r.targetPort),
        r.protocol,
      ];
    }),
  );
}
