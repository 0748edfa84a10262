/**
 * A manager stopped while its controller has writes in flight, on a loaded machine, against a real
 * kube-apiserver: node-ipam-controller's PATCHes are aborted by the stop, the server's answers to some of them
 * are already on the way, and the API clients close right after. Nothing may reach the process as an uncaught
 * exception or unhandled rejection (undici's `ClientDestroyedError` did, from HTTP/2 streams Node made for
 * those answers; see `unrequested-streams.ts` in the runtime). The load is simulated by stalls of the event
 * loop (20–100 ms every 150 ms), during which the server's answers pile up unread.
 */
import diagnostics from 'node:diagnostics_channel';
import { FakeCloud, uniqueName } from '@ccm-kit/testing';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';
import { allocated, createNodes, nodesOf } from './node-ipam-fixture.js';

const controlPlane = useControlPlane();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Uncaught exceptions and unhandled rejections, recorded until the test ends. */
function processErrors(): unknown[] {
  const errors: unknown[] = [];
  const record = (err: unknown) => errors.push(err);
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  cleanups.push(() => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  });
  return errors;
}

/** Blocks the event loop for 20–100 ms every 150 ms, as a machine at load 20 on 2 cores does. */
function stallEventLoop(): void {
  const timer = setInterval(() => {
    const end = Date.now() + 20 + Math.random() * 80;
    while (Date.now() < end) {
      // busy
    }
  }, 150);
  cleanups.push(() => clearInterval(timer));
}

/** Counts HTTP/2 streams Node made for answers to requests the client had reset. */
function countUnrequestedStreams(): { count: number } {
  const seen = { count: 0 };
  const onCreated = (m: unknown) => {
    if ((m as { headers?: Record<string, unknown> }).headers?.[':status'] !== undefined) seen.count++;
  };
  diagnostics.subscribe('http2.client.stream.created', onCreated);
  cleanups.push(() => diagnostics.unsubscribe('http2.client.stream.created', onCreated));
  return seen;
}

it('a manager stopped with node-ipam writes in flight closes its clients without an uncaught error', async () => {
  const cp = controlPlane();
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const errors = processErrors();
  const unrequested = countUnrequestedStreams();
  stallEventLoop();
  for (let round = 0; round < 2; round++) {
    const group = uniqueName('stopwrites');
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=fake',
        '--leader-elect=false',
        '--secure-port=0',
        '--controllers=node-ipam-controller',
        '--allocate-node-cidrs=true',
        `--cluster-cidr=10.${80 + round}.0.0/16`,
      ],
      cloud: new FakeCloud({ enableInstancesV2: true }),
      kubeConfig: cp.kubeConfig,
    });
    await createNodes(core, group, 60);
    // A second wave is being created and allocated when the manager stops.
    const wave = createNodes(core, group, 60, 60);
    await new Promise((r) => setTimeout(r, 100 + round * 150));
    await ccm.stop();
    await ccm.done;
    await wave;
    // The answers and the closed connections have been handled by now.
    await new Promise((r) => setTimeout(r, 500));
    console.log(`round ${round}: ${allocated(await nodesOf(core, group)).length} of 120 Nodes allocated`);
    for (const n of await nodesOf(core, group)) await core.deleteNode({ name: n.metadata!.name! });
  }
  console.log(`HTTP/2 streams made for answers to reset requests: ${unrequested.count}`);
  expect(errors).toEqual([]);
}, 180_000);
