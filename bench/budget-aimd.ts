/**
 * The cloud budget's AIMD against a cloud with the same rate (docs/decisions/0063-cloud-budget.md): `callers`
 * loops saturate a `CloudBudget` of `rate` calls/s in front of a cloud token bucket of `rate`/s (burst = rate,
 * as fakebench's quota), with 0–20 ms between the grant and the cloud, for `seconds`; a 429 is reported to the
 * budget. Prints the calls the cloud answered per second and the 429s, for each decrease factor.
 *
 *   npm run build && node bench/budget-aimd.ts [--rate=10] [--seconds=60] [--callers=20] [--decrease=0.5,0.7]
 */
import { parseArgs } from 'node:util';
import { setLogWriter } from '@ccm-kit/runtime';
import { CloudBudget, withCloudLane } from '@ccm-kit/runtime/budget';
import { Registry } from 'prom-client';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '60' },
    callers: { type: 'string', default: '20' },
    decrease: { type: 'string', default: '0.5,0.7' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const callers = Number(values.callers);
setLogWriter(() => {});

/** The cloud's quota: `rate` tokens a second, at most `rate` held, full at the start. */
function cloudBucket(): (now: number) => boolean {
  let tokens = rate;
  let last = Date.now();
  return (now) => {
    tokens = Math.min(rate, tokens + ((now - last) * rate) / 1000);
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(decrease: number) {
  const cloud = cloudBucket();
  const budget = new CloudBudget({ qps: rate, burst: rate, decrease, registry: new Registry() });
  let ok = 0;
  let throttled = 0;
  const start = Date.now();
  const end = start + seconds * 1000;
  const caller = async () => {
    while (Date.now() < end) {
      await withCloudLane('periodic', async () => {
        await budget.acquire('call');
        await sleep(Math.random() * 20);
        if (Date.now() >= end) return;
        if (cloud(Date.now())) ok++;
        else {
          throttled++;
          budget.observeThrottle('call', Object.assign(new Error('429'), { status: 429, retryAfterMs: 1000 }));
        }
      });
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return { decrease, okPerSecond: +(ok / seconds).toFixed(2), throttled, finalQps: +budget.qps.toFixed(2) };
}

for (const d of values.decrease.split(',').map(Number)) console.log(JSON.stringify(await run(d)));
process.exit(0);
