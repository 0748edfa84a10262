import { describe, expect, it } from 'vitest';
import { K8S_MAGIC, unwrap, watchFrames } from '../protobuf/envelope.ts';
import { k8sRoot } from '../protobuf/schema.ts';
import { jsonShapers, microTimeToJson, timeToJson } from '../protobuf/to-json-shape.ts';

const root = k8sRoot();
const type = (n: string) => root.lookupType(`k8s.${n}`);
const shapers = jsonShapers(root);
const encode = (n: string, obj: object) => type(n).encode(type(n).fromObject(obj)).finish();
const envelope = (kind: string, raw: Uint8Array) =>
  Uint8Array.from([...K8S_MAGIC, ...encode('Unknown', { typeMeta: { apiVersion: 'v1', kind }, raw })]);
const frame = (b: Uint8Array) => {
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setUint32(0, b.length);
  out.set(b, 4);
  return out;
};
const shape = (kind: string, bytes: Uint8Array) => shapers.get(kind)!(type(kind).decode(bytes) as never);

describe('time', () => {
  it('writes metav1.Time in whole seconds and MicroTime with microseconds, null when zero', () => {
    expect(timeToJson(1_764_356_400)).toBe('2025-11-28T19:00:00Z');
    expect(timeToJson(0)).toBeNull();
    expect(microTimeToJson(1_764_356_400, 123_456_789)).toBe('2025-11-28T19:00:00.123456Z');
    expect(microTimeToJson(0, 0)).toBeNull();
  });
});

describe('the JSON shape of a decoded Node', () => {
  // As Go's gogo-protobuf writes it: non-pointer strings even when empty, zero structs as empty messages.
  const node = {
    metadata: {
      name: 'n1',
      generateName: '',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: { seconds: 1_764_356_400 },
      labels: { a: 'b' },
      annotations: {},
      managedFields: [
        {
          manager: 'm',
          operation: 'Update',
          apiVersion: 'v1',
          time: { seconds: 1_764_356_400 },
          fieldsType: 'FieldsV1',
          fieldsV1: { Raw: Buffer.from('{"f:spec":{}}') },
        },
      ],
    },
    spec: {
      podCIDR: '10.64.0.0/24',
      providerID: '',
      unschedulable: false,
      taints: [{ key: 'k', value: '', effect: 'NoSchedule' }],
    },
    status: {
      capacity: { cpu: { string: '4' } },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: {},
          lastTransitionTime: { seconds: 1_764_356_400 },
          reason: '',
          message: '',
        },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: '', kubeletVersion: 'v1.36.4' },
      images: [{ names: ['a'], sizeBytes: 12_345_678_901 }],
    },
  };

  it('leaves out empty omitempty fields, keeps required ones and maps the special types', () => {
    const u = unwrap(type('Unknown'), envelope('Node', encode('Node', node)));
    expect(u).toMatchObject({ apiVersion: 'v1', kind: 'Node' });
    const json = shape('Node', u.raw) as Record<string, Record<string, unknown>>;
    expect(json.metadata).toEqual({
      name: 'n1',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: '2025-11-28T19:00:00Z',
      labels: { a: 'b' },
      managedFields: [
        {
          manager: 'm',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2025-11-28T19:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': {} },
        },
      ],
    });
    expect(json.spec).toEqual({ podCIDR: '10.64.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(json.status).toEqual({
      capacity: { cpu: '4' },
      conditions: [
        { type: 'Ready', status: 'True', lastHeartbeatTime: null, lastTransitionTime: '2025-11-28T19:00:00Z' },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '',
        osImage: '',
        containerRuntimeVersion: '',
        kubeletVersion: 'v1.36.4',
        kubeProxyVersion: '',
        operatingSystem: '',
        architecture: '',
      },
      images: [{ names: ['a'], sizeBytes: 12_345_678_901 }],
    });
    // The fields in the Go struct's order, as the server's JSON has them.
    expect(Object.keys(json.status!)).toEqual([
      'capacity',
      'conditions',
      'addresses',
      'daemonEndpoints',
      'nodeInfo',
      'images',
    ]);
  });

  it('writes a pointer field present on the wire even when zero, and IntOrString as a number or a string', () => {
    const svc = {
      metadata: { name: 's' },
      spec: {
        ports: [
          { port: 80, targetPort: { type: 0, intVal: 8080 }, nodePort: 0 },
          { port: 443, targetPort: { type: 1, strVal: 'https' }, nodePort: 31000 },
        ],
        allocateLoadBalancerNodePorts: false,
      },
      status: { loadBalancer: { ingress: [{ ip: '198.18.0.1', ipMode: 'VIP' }] } },
    };
    expect(shape('Service', encode('Service', svc))).toEqual({
      metadata: { name: 's', creationTimestamp: null },
      spec: {
        ports: [
          { port: 80, targetPort: 8080 },
          { port: 443, targetPort: 'https', nodePort: 31000 },
        ],
        allocateLoadBalancerNodePorts: false,
      },
      status: { loadBalancer: { ingress: [{ ip: '198.18.0.1', ipMode: 'VIP' }] } },
    });
  });
});

describe('envelope and watch frames', () => {
  it('refuses bytes without the k8s\\0 prefix', () => {
    expect(() => unwrap(type('Unknown'), encode('Unknown', { raw: Uint8Array.of(1) }))).toThrow(/no k8s\\0 prefix/);
  });

  it('splits length-prefixed frames of bare watch events and refuses a frame cut short', () => {
    const a = encode('WatchEvent', {
      type: 'ADDED',
      object: { raw: envelope('Node', encode('Node', { metadata: { name: 'a' } })) },
    });
    const b = encode('WatchEvent', {
      type: 'DELETED',
      object: { raw: envelope('Node', encode('Node', { metadata: { name: 'b' } })) },
    });
    const body = Uint8Array.from([...frame(a), ...frame(b)]);
    const events = Array.from(watchFrames(body), (f) => {
      const e = type('WatchEvent').decode(f) as unknown as {
        type: string;
        object: { raw: Uint8Array };
      };
      return [
        e.type,
        (shape('Node', unwrap(type('Unknown'), e.object.raw).raw) as { metadata: { name: string } }).metadata.name,
      ];
    });
    expect(events).toEqual([
      ['ADDED', 'a'],
      ['DELETED', 'b'],
    ]);
    expect(() => Array.from(watchFrames(body.subarray(0, body.length - 1)))).toThrow(/cut short/);
  });
});
