/**
 * The protobuf messages of a core/v1 Node and Service, their list and watch event, and the `runtime.Unknown`
 * envelope, as a protobufjs reflection schema. Written by hand for this benchmark, not generated: each field's
 * number and type as the wire format of `k8s.io/api/core/v1/generated.proto` and
 * `k8s.io/apimachinery/pkg/{apis/meta/v1,runtime,util/intstr,api/resource}/generated.proto` documents them, and
 * beside it how the server's JSON writes it (the Go struct's `json` tag), which protobuf cannot tell:
 *
 * - `omit` (the default): `omitempty`: left out when absent or the zero value;
 * - `always`: always written, the zero value when absent (a required field, or a non-pointer struct, which
 *   `omitempty` never drops; a zero `metav1.Time` is written `null`);
 * - `ptr`: a pointer: written when present on the wire, even when zero.
 *
 * Only the fields of these types; a field the schema lacks is skipped by the decoder (and would be missing from
 * the mapped object: the benchmark checks every object against the server's JSON).
 */
import protobuf from 'protobufjs';

export type JsonRule = 'omit' | 'always' | 'ptr';

/** `[name, field number, type, rule?, 'repeated' | 'map'?]`; a map's type is its value type (keys are strings). */
type FieldSpec = readonly [string, number, string, JsonRule?, ('repeated' | 'map')?];

/** Types with their own JSON form (see to-json-shape.ts). */
export const SPECIAL_TYPES = ['Time', 'MicroTime', 'Quantity', 'IntOrString', 'FieldsV1'] as const;

export const MESSAGES: Record<string, readonly FieldSpec[]> = {
  // k8s.io/apimachinery/pkg/runtime
  Unknown: [
    ['typeMeta', 1, 'TypeMeta'],
    ['raw', 2, 'bytes'],
    ['contentEncoding', 3, 'string'],
    ['contentType', 4, 'string'],
  ],
  TypeMeta: [
    ['apiVersion', 1, 'string'],
    ['kind', 2, 'string'],
  ],
  RawExtension: [['raw', 1, 'bytes']],
  // k8s.io/apimachinery/pkg/apis/meta/v1
  WatchEvent: [
    ['type', 1, 'string', 'always'],
    ['object', 2, 'RawExtension', 'always'],
  ],
  Time: [
    ['seconds', 1, 'int64'],
    ['nanos', 2, 'int32'],
  ],
  MicroTime: [
    ['seconds', 1, 'int64'],
    ['nanos', 2, 'int32'],
  ],
  FieldsV1: [['Raw', 1, 'bytes']],
  ListMeta: [
    ['selfLink', 1, 'string'],
    ['resourceVersion', 2, 'string'],
    ['continue', 3, 'string'],
    ['remainingItemCount', 4, 'int64', 'ptr'],
  ],
  ObjectMeta: [
    ['name', 1, 'string'],
    ['generateName', 2, 'string'],
    ['namespace', 3, 'string'],
    ['selfLink', 4, 'string'],
    ['uid', 5, 'string'],
    ['resourceVersion', 6, 'string'],
    ['generation', 7, 'int64'],
    ['creationTimestamp', 8, 'Time', 'always'],
    ['deletionTimestamp', 9, 'Time', 'ptr'],
    ['deletionGracePeriodSeconds', 10, 'int64', 'ptr'],
    ['labels', 11, 'string', 'omit', 'map'],
    ['annotations', 12, 'string', 'omit', 'map'],
    ['ownerReferences', 13, 'OwnerReference', 'omit', 'repeated'],
    ['finalizers', 14, 'string', 'omit', 'repeated'],
    ['managedFields', 17, 'ManagedFieldsEntry', 'omit', 'repeated'],
  ],
  OwnerReference: [
    ['apiVersion', 5, 'string', 'always'],
    ['kind', 1, 'string', 'always'],
    ['name', 3, 'string', 'always'],
    ['uid', 4, 'string', 'always'],
    ['controller', 6, 'bool', 'ptr'],
    ['blockOwnerDeletion', 7, 'bool', 'ptr'],
  ],
  ManagedFieldsEntry: [
    ['manager', 1, 'string'],
    ['operation', 2, 'string'],
    ['apiVersion', 3, 'string'],
    ['time', 4, 'Time', 'ptr'],
    ['fieldsType', 6, 'string'],
    ['fieldsV1', 7, 'FieldsV1', 'ptr'],
    ['subresource', 8, 'string'],
  ],
  Condition: [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['observedGeneration', 3, 'int64'],
    ['lastTransitionTime', 4, 'Time', 'always'],
    ['reason', 5, 'string', 'always'],
    ['message', 6, 'string', 'always'],
  ],
  // k8s.io/apimachinery/pkg/util/intstr, k8s.io/apimachinery/pkg/api/resource
  IntOrString: [
    ['type', 1, 'int64'],
    ['intVal', 2, 'int32'],
    ['strVal', 3, 'string'],
  ],
  Quantity: [['string', 1, 'string']],
  // k8s.io/api/core/v1: Node
  NodeList: [
    ['metadata', 1, 'ListMeta', 'always'],
    ['items', 2, 'Node', 'always', 'repeated'],
  ],
  Node: [
    ['metadata', 1, 'ObjectMeta', 'always'],
    ['spec', 2, 'NodeSpec', 'always'],
    ['status', 3, 'NodeStatus', 'always'],
  ],
  NodeSpec: [
    ['podCIDR', 1, 'string'],
    ['podCIDRs', 7, 'string', 'omit', 'repeated'],
    ['providerID', 3, 'string'],
    ['unschedulable', 4, 'bool'],
    ['taints', 5, 'Taint', 'omit', 'repeated'],
    ['externalID', 2, 'string'],
  ],
  Taint: [
    ['key', 1, 'string', 'always'],
    ['value', 2, 'string'],
    ['effect', 3, 'string', 'always'],
    ['timeAdded', 4, 'Time', 'ptr'],
  ],
  NodeStatus: [
    ['capacity', 1, 'Quantity', 'omit', 'map'],
    ['allocatable', 2, 'Quantity', 'omit', 'map'],
    ['phase', 3, 'string'],
    ['conditions', 4, 'NodeCondition', 'omit', 'repeated'],
    ['addresses', 5, 'NodeAddress', 'omit', 'repeated'],
    ['daemonEndpoints', 6, 'NodeDaemonEndpoints', 'always'],
    ['nodeInfo', 7, 'NodeSystemInfo', 'always'],
    ['images', 8, 'ContainerImage', 'omit', 'repeated'],
    ['volumesInUse', 9, 'string', 'omit', 'repeated'],
    ['volumesAttached', 10, 'AttachedVolume', 'omit', 'repeated'],
    ['runtimeHandlers', 12, 'NodeRuntimeHandler', 'omit', 'repeated'],
    ['features', 13, 'NodeFeatures', 'ptr'],
    ['declaredFeatures', 14, 'string', 'omit', 'repeated'],
  ],
  NodeCondition: [
    ['type', 1, 'string', 'always'],
    ['status', 2, 'string', 'always'],
    ['lastHeartbeatTime', 3, 'Time', 'always'],
    ['lastTransitionTime', 4, 'Time', 'always'],
    ['reason', 5, 'string'],
    ['message', 6, 'string'],
  ],
  NodeAddress: [
    ['type', 1, 'string', 'always'],
    ['address', 2, 'string', 'always'],
  ],
  NodeDaemonEndpoints: [['kubeletEndpoint', 1, 'DaemonEndpoint', 'always']],
  DaemonEndpoint: [['Port', 1, 'int32', 'always']],
  NodeSystemInfo: [
    ['machineID', 1, 'string', 'always'],
    ['systemUUID', 2, 'string', 'always'],
    ['bootID', 3, 'string', 'always'],
    ['kernelVersion', 4, 'string', 'always'],
    ['osImage', 5, 'string', 'always'],
    ['containerRuntimeVersion', 6, 'string', 'always'],
    ['kubeletVersion', 7, 'string', 'always'],
    ['kubeProxyVersion', 8, 'string', 'always'],
    ['operatingSystem', 9, 'string', 'always'],
    ['architecture', 10, 'string', 'always'],
    ['swap', 11, 'NodeSwapStatus', 'ptr'],
  ],
  NodeSwapStatus: [['capacity', 1, 'int64', 'ptr']],
  ContainerImage: [
    ['names', 1, 'string', 'always', 'repeated'],
    ['sizeBytes', 2, 'int64'],
  ],
  AttachedVolume: [
    ['name', 1, 'string', 'always'],
    ['devicePath', 2, 'string', 'always'],
  ],
  NodeRuntimeHandler: [
    ['name', 1, 'string', 'always'],
    ['features', 2, 'NodeRuntimeHandlerFeatures', 'ptr'],
  ],
  NodeRuntimeHandlerFeatures: [
    ['recursiveReadOnlyMounts', 1, 'bool', 'ptr'],
    ['userNamespaces', 2, 'bool', 'ptr'],
  ],
  NodeFeatures: [['supplementalGroupsPolicy', 1, 'bool', 'ptr']],
  // k8s.io/api/core/v1: Service
  ServiceList: [
    ['metadata', 1, 'ListMeta', 'always'],
    ['items', 2, 'Service', 'always', 'repeated'],
  ],
  Service: [
    ['metadata', 1, 'ObjectMeta', 'always'],
    ['spec', 2, 'ServiceSpec', 'always'],
    ['status', 3, 'ServiceStatus', 'always'],
  ],
  ServiceSpec: [
    ['ports', 1, 'ServicePort', 'omit', 'repeated'],
    ['selector', 2, 'string', 'omit', 'map'],
    ['clusterIP', 3, 'string'],
    ['clusterIPs', 18, 'string', 'omit', 'repeated'],
    ['type', 4, 'string'],
    ['externalIPs', 5, 'string', 'omit', 'repeated'],
    ['sessionAffinity', 7, 'string'],
    ['loadBalancerIP', 8, 'string'],
    ['loadBalancerSourceRanges', 9, 'string', 'omit', 'repeated'],
    ['externalName', 10, 'string'],
    ['externalTrafficPolicy', 11, 'string'],
    ['healthCheckNodePort', 12, 'int32'],
    ['publishNotReadyAddresses', 13, 'bool'],
    ['sessionAffinityConfig', 14, 'SessionAffinityConfig', 'ptr'],
    ['ipFamilies', 19, 'string', 'omit', 'repeated'],
    ['ipFamilyPolicy', 17, 'string', 'ptr'],
    ['allocateLoadBalancerNodePorts', 20, 'bool', 'ptr'],
    ['loadBalancerClass', 21, 'string', 'ptr'],
    ['internalTrafficPolicy', 22, 'string', 'ptr'],
    ['trafficDistribution', 23, 'string', 'ptr'],
  ],
  ServicePort: [
    ['name', 1, 'string'],
    ['protocol', 2, 'string'],
    ['appProtocol', 6, 'string', 'ptr'],
    ['port', 3, 'int32', 'always'],
    ['targetPort', 4, 'IntOrString', 'always'],
    ['nodePort', 5, 'int32'],
  ],
  SessionAffinityConfig: [['clientIP', 1, 'ClientIPConfig', 'ptr']],
  ClientIPConfig: [['timeoutSeconds', 1, 'int32', 'ptr']],
  ServiceStatus: [
    ['loadBalancer', 1, 'LoadBalancerStatus', 'always'],
    ['conditions', 2, 'Condition', 'omit', 'repeated'],
  ],
  LoadBalancerStatus: [['ingress', 1, 'LoadBalancerIngress', 'omit', 'repeated']],
  LoadBalancerIngress: [
    ['ip', 1, 'string'],
    ['hostname', 2, 'string'],
    ['ipMode', 3, 'string', 'ptr'],
    ['ports', 4, 'PortStatus', 'omit', 'repeated'],
  ],
  PortStatus: [
    ['port', 1, 'int32', 'always'],
    ['protocol', 2, 'string', 'always'],
    ['error', 3, 'string', 'ptr'],
  ],
};

/** The JSON rule of each field, by message and field name. */
export function jsonRules(): Map<string, Map<string, JsonRule>> {
  return new Map(
    Object.entries(MESSAGES).map(([msg, fields]) => [msg, new Map(fields.map(([n, , , rule]) => [n, rule ?? 'omit']))]),
  );
}

/**
 * The schema as a protobufjs Root. int64 fields decode to JavaScript numbers (as `JSON.parse` gives them: exact
 * below 2^53), not `Long` objects.
 */
export function k8sRoot(): protobuf.Root {
  protobuf.util.Long = undefined as unknown as typeof protobuf.util.Long;
  protobuf.configure();
  const nested: Record<string, protobuf.IType> = {};
  for (const [msg, fields] of Object.entries(MESSAGES)) {
    // Kubernetes' messages are proto2: a field present on the wire stays present even when zero (pointers).
    nested[msg] = {
      edition: 'proto2',
      fields: Object.fromEntries(
        fields.map(([name, id, type, , kind]) => [
          name,
          kind === 'map'
            ? { keyType: 'string', type, id }
            : { type, id, ...(kind === 'repeated' ? { rule: 'repeated' } : {}) },
        ]),
      ),
    };
  }
  return protobuf.Root.fromJSON({ nested: { k8s: { nested } } });
}
