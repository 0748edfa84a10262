import { coreV1EventSink, EventBroadcaster } from '@ccm-kit/runtime/events';
import { uniqueName as uniq } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

const cp = useControlPlane();

async function eventsAbout(api: CoreV1Api, namespace: string, name: string): Promise<CoreV1Event[]> {
  const list = await api.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

describe('events against a real API server', () => {
  it('deduplicates repeated Node events into one Event with count N in namespace default', async () => {
    const api = cp().kubeConfig.makeApiClient(CoreV1Api);
    const b = new EventBroadcaster({ retryIntervalMs: 50 });
    b.startRecordingToSink(coreV1EventSink(api));
    const recorder = b.newRecorder('cloud-node-controller');
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: uniq('node'), uid: 'uid-1' } };
    for (let i = 0; i < 7; i++) recorder.event(node, 'Normal', 'Synced', 'Node synced successfully');
    await b.shutdown(10_000);

    const events = await eventsAbout(api, 'default', node.metadata.name);
    expect(events).toHaveLength(1);
    const e = events[0] as CoreV1Event;
    expect(e.count).toBe(7);
    expect(e.reason).toBe('Synced');
    expect(e.type).toBe('Normal');
    expect(e.source?.component).toBe('cloud-node-controller');
    expect(e.involvedObject).toMatchObject({
      apiVersion: 'v1',
      kind: 'Node',
      name: node.metadata.name,
      uid: 'uid-1',
    });
    expect(e.involvedObject.namespace).toBeUndefined();
    expect(new Date(e.lastTimestamp as unknown as string).getTime()).toBeGreaterThanOrEqual(
      new Date(e.firstTimestamp as unknown as string).getTime(),
    );
  });

  it("writes a namespaced object's events in its namespace and recreates a deleted event", async () => {
    const api = cp().kubeConfig.makeApiClient(CoreV1Api);
    const namespace = uniq('ns');
    await api.createNamespace({ body: { metadata: { name: namespace } } });
    const b = new EventBroadcaster({ retryIntervalMs: 50 });
    b.startRecordingToSink(coreV1EventSink(api));
    const recorder = b.newRecorder('service-controller');
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: uniq('svc'), namespace, uid: 'uid-2' },
    };
    recorder.eventf(svc, 'Warning', 'SyncLoadBalancerFailed', 'Error syncing load balancer: %v', 'quota exceeded');
    recorder.eventf(svc, 'Warning', 'SyncLoadBalancerFailed', 'Error syncing load balancer: %v', 'quota exceeded');

    let events: CoreV1Event[] = await eventuallyValue(
      async () => {
        const found = await eventsAbout(api, namespace, svc.metadata.name);
        return found[0]?.count === 2 ? found : undefined;
      },
      { what: 'the event with count 2', timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.count).toBe(2);
    expect(events[0]?.message).toBe('Error syncing load balancer: quota exceeded');

    // The stored event disappears (TTL, manual delete): the next repeat gets a 404 on PATCH and is created again.
    await api.deleteNamespacedEvent({ namespace, name: events[0]?.metadata.name as string });
    recorder.eventf(svc, 'Warning', 'SyncLoadBalancerFailed', 'Error syncing load balancer: %v', 'quota exceeded');
    await b.shutdown(10_000);
    events = await eventsAbout(api, namespace, svc.metadata.name);
    expect(events).toHaveLength(1);
    expect(events[0]?.count).toBe(3);
  });
});
