/**
 * Kubernetes' protobuf envelope and watch framing (k8s.io/apimachinery `pkg/runtime/serializer/protobuf/
 * protobuf.go` and `pkg/util/framer/framer.go`): a body of `application/vnd.kubernetes.protobuf` is the 4 bytes
 * `k8s\0` then a `runtime.Unknown` whose `typeMeta` names the kind and whose `raw` holds the object's message; a
 * watch (`;stream=watch`) is a sequence of frames, each a 4-byte big-endian length then that many bytes, each
 * frame a bare `metav1.WatchEvent` (no envelope: the stream's raw serializer) whose `object.raw` is an enveloped
 * object.
 */
import type protobuf from 'protobufjs';

/** The 4 bytes before every protobuf-encoded Kubernetes object. */
export const K8S_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Unwrapped {
  apiVersion: string;
  kind: string;
  /** The object's own message. */
  raw: Uint8Array;
}

/**
 * Splits an enveloped object into its type and message.
 * @throws Error when the bytes do not start with `k8s\0`.
 */
export function unwrap(unknownType: protobuf.Type, bytes: Uint8Array): Unwrapped {
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== K8S_MAGIC[i]) throw new Error('not a Kubernetes protobuf object: no k8s\\0 prefix');
  }
  const u = unknownType.decode(bytes.subarray(4)) as unknown as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: Uint8Array;
  };
  return { apiVersion: u.typeMeta?.apiVersion ?? '', kind: u.typeMeta?.kind ?? '', raw: u.raw ?? new Uint8Array() };
}

/**
 * The frames of a watch body: each a 4-byte big-endian length then the frame.
 * @throws Error when the last frame is cut short.
 */
export function* watchFrames(body: Uint8Array): Generator<Uint8Array> {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) throw new Error(`watch frame header cut short at byte ${at}`);
    const len = view.getUint32(at);
    if (at + 4 + len > body.length) throw new Error(`watch frame of ${len} bytes cut short at byte ${at}`);
    yield body.subarray(at + 4, at + 4 + len);
    at += 4 + len;
  }
}
