/** The Event reasons of `service-lb-gc-controller` (docs/controllers/service-lb-gc-controller.md). */

/** Warning: dry run, the balancer would be deleted. */
export const EVENT_ORPHANED_LOAD_BALANCER = 'OrphanedLoadBalancer';
/** Warning: orphaned for this CCM, but its Service still exists; not deleted. */
export const EVENT_ORPHANED_LOAD_BALANCER_KEPT = 'OrphanedLoadBalancerKept';
/** Normal: the balancer was deleted. */
export const EVENT_DELETED_ORPHANED_LOAD_BALANCER = 'DeletedOrphanedLoadBalancer';
/** Warning: deleting the balancer failed; the next pass tries again. */
export const EVENT_DELETE_ORPHANED_LOAD_BALANCER_FAILED = 'DeleteOrphanedLoadBalancerFailed';
