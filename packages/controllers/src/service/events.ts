/**
 * Event reasons and messages of the service load-balancer controller, exactly as upstream
 * (`controllers/service/controller.go`). Events are recorded with source component `service-controller`.
 */

/** Normal: the ensure path starts. */
export const EVENT_ENSURING_LOAD_BALANCER = {
  reason: 'EnsuringLoadBalancer',
  message: 'Ensuring load balancer',
};
/** Normal: `ensureLoadBalancer` returned a status. */
export const EVENT_ENSURED_LOAD_BALANCER = {
  reason: 'EnsuredLoadBalancer',
  message: 'Ensured load balancer',
};
/** Normal: a load balancer is about to be deleted. */
export const EVENT_DELETING_LOAD_BALANCER = {
  reason: 'DeletingLoadBalancer',
  message: 'Deleting load balancer',
};
/** Normal: the delete path finished (also emitted when no load balancer existed). */
export const EVENT_DELETED_LOAD_BALANCER = {
  reason: 'DeletedLoadBalancer',
  message: 'Deleted load balancer',
};
/** Normal: a node sync updated the hosts. */
export const EVENT_UPDATED_LOAD_BALANCER = {
  reason: 'UpdatedLoadBalancer',
  message: 'Updated load balancer with new hosts',
};
/** Warning: no node qualifies as a load-balancer host. */
export const EVENT_UNAVAILABLE_LOAD_BALANCER = {
  reason: 'UnAvailableLoadBalancer',
  message: 'There are no available nodes for LoadBalancer',
};
/** Warning reason: the sync failed; message `Error syncing load balancer: <err>`. */
export const REASON_SYNC_LOAD_BALANCER_FAILED = 'SyncLoadBalancerFailed';
/** Warning reason: the legacy delete path failed; message `Error deleting load balancer: <err>`. */
export const REASON_DELETE_LOAD_BALANCER_FAILED = 'DeleteLoadBalancerFailed';
/**
 * Warning reason: a node sync failed; message
 * `Error updating load balancer with new hosts <names> [node names limited, total number of nodes: <n>], error: <err>`.
 */
export const REASON_UPDATE_LOAD_BALANCER_FAILED = 'UpdateLoadBalancerFailed';
