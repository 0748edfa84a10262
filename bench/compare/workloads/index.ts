/** Every workload of bench:compare, in report order. */
import { w1 } from './w1-node-init.ts';
import { w2 } from './w2-services.ts';
import { w3 } from './w3-fanout.ts';
import { w4 } from './w4-routes.ts';
import { w5 } from './w5-lifecycle.ts';
import { w6 } from './w6-idle.ts';
import { w7 } from './w7-restart.ts';
import { w8 } from './w8-scale.ts';
import { w9 } from './w9-quota.ts';
import { w10 } from './w10-groups.ts';
import type { Workload, WorkloadId } from './workload.ts';

export const WORKLOADS: readonly Workload[] = [w1, w2, w3, w4, w5, w6, w7, w8, w9, w10];
export const workloadById = (id: WorkloadId): Workload => WORKLOADS.find((w) => w.id === id)!;
export type { Measured, Workload, WorkloadId } from './workload.ts';
