/**
 * Volume errors.
 * Follows upstream `k8s.io/cloud-provider/volume/errors/errors.go`. As upstream, the
 * `is…` checks look at the error itself only, not its cause chain (use `findError` for that).
 */

/** A volume that is being deleted is still in use (upstream `DeletedVolumeInUseError`). */
export class DeletedVolumeInUseError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeletedVolumeInUseError';
  }
}

/** True when `err` is a {@link DeletedVolumeInUseError} (no unwrapping). */
export function isDeletedVolumeInUse(err: unknown): err is DeletedVolumeInUseError {
  return err instanceof DeletedVolumeInUseError;
}

/**
 * A volume is attached to another node than expected (upstream `DanglingAttachError`, built by
 * `NewDanglingError(msg, node, devicePath)`).
 */
export class DanglingAttachError extends Error {
  /** The node the volume is attached to. */
  readonly currentNode: string;
  /** The device path on that node. */
  readonly devicePath: string;

  constructor(message: string, currentNode: string, devicePath: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DanglingAttachError';
    this.currentNode = currentNode;
    this.devicePath = devicePath;
  }
}

/** True when `err` is a {@link DanglingAttachError} (no unwrapping). */
export function isDanglingError(err: unknown): err is DanglingAttachError {
  return err instanceof DanglingAttachError;
}
