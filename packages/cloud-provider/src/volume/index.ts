/**
 * `@ccm-kit/cloud-provider/volume`: upstream `k8s.io/cloud-provider/volume/helpers` for providers with disks —
 * Kubernetes quantities (`Quantity`, exact), the size units and rounding (`roundUpToGiB` and friends, `bigint`,
 * with `…Int` and `roundUpToGiBInt32` forms), the zone helpers of `volume/helpers/zones.go`, and the volume
 * errors of `volume/errors`. Public API, covered by semver.
 */
export { isDeletedVolumeInUse, isDanglingError, DeletedVolumeInUseError, DanglingAttachError } from './errors.js';
export { Quantity } from './quantity.js';
export {
  roundUpToGiBInt32,
  GB,
  GiB,
  MB,
  MiB,
  KB,
  KiB,
  roundUpToGiB,
  roundUpToMB,
  roundUpToMiB,
  roundUpToKB,
  roundUpToKiB,
  roundUpToB,
  roundUpToGiBInt,
  roundUpToMBInt,
  roundUpToMiBInt,
  roundUpToKBInt,
  roundUpToKiBInt,
  roundUpToBInt,
} from './rounding.js';
export {
  zonesToSet,
  labelZonesToSet,
  labelZonesToList,
  zonesSetToLabelValue,
  zonesFromAllowedTopologies,
  chooseZonesForVolume,
  chooseZonesForVolumeIncludingZone,
  selectZonesForVolume,
  selectZoneForVolume,
  type SelectZonesForVolumeInput,
} from './zones.js';
