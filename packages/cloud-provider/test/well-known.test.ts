import * as cp from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';

describe('well-known strings (upstream `k8s.io/cloud-provider api/well_known_*.go`)', () => {
  it('taints, annotations, finalizer', () => {
    expect(cp.TAINT_EXTERNAL_CLOUD_PROVIDER).toBe('node.cloudprovider.kubernetes.io/uninitialized');
    expect(cp.TAINT_NODE_SHUTDOWN).toBe('node.cloudprovider.kubernetes.io/shutdown');
    expect(cp.TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER).toBe('ToBeDeletedByClusterAutoscaler');
    expect(cp.ANNOTATION_ALPHA_PROVIDED_IP_ADDR).toBe('alpha.kubernetes.io/provided-node-ip');
    expect(cp.ANNOTATION_LOAD_BALANCER_SOURCE_RANGES).toBe('service.beta.kubernetes.io/load-balancer-source-ranges');
    expect(cp.LOAD_BALANCER_CLEANUP_FINALIZER).toBe('service.kubernetes.io/load-balancer-cleanup');
  });

  it('labels', () => {
    expect(cp.LABEL_NODE_EXCLUDE_BALANCERS).toBe('node.kubernetes.io/exclude-from-external-load-balancers');
    expect(cp.LABEL_TOPOLOGY_ZONE).toBe('topology.kubernetes.io/zone');
    expect(cp.LABEL_FAILURE_DOMAIN_BETA_ZONE).toBe('failure-domain.beta.kubernetes.io/zone');
    expect(cp.LABEL_TOPOLOGY_REGION).toBe('topology.kubernetes.io/region');
    expect(cp.LABEL_FAILURE_DOMAIN_BETA_REGION).toBe('failure-domain.beta.kubernetes.io/region');
    expect(cp.LABEL_INSTANCE_TYPE_STABLE).toBe('node.kubernetes.io/instance-type');
    expect(cp.LABEL_INSTANCE_TYPE).toBe('beta.kubernetes.io/instance-type');
  });

  it('NetworkUnavailable condition, ports, external', () => {
    expect(cp.NODE_CONDITION_NETWORK_UNAVAILABLE).toBe('NetworkUnavailable');
    expect(cp.NETWORK_UNAVAILABLE_REASON_ROUTE_CREATED).toBe('RouteCreated');
    expect(cp.NETWORK_UNAVAILABLE_MESSAGE_ROUTE_CREATED).toBe('RouteController created a route');
    expect(cp.NETWORK_UNAVAILABLE_REASON_NO_ROUTE_CREATED).toBe('NoRouteCreated');
    expect(cp.NETWORK_UNAVAILABLE_MESSAGE_NO_ROUTE_CREATED).toBe('RouteController failed to create a route');
    expect(cp.CLOUD_CONTROLLER_MANAGER_PORT).toBe(10258);
    expect(cp.CLOUD_CONTROLLER_MANAGER_WEBHOOK_PORT).toBe(10260);
    expect(cp.EXTERNAL_CLOUD_PROVIDER_NAME).toBe('external');
  });

  it('controller names match upstream naming rules; aliases map to canonical names', () => {
    expect(cp.CLOUD_CONTROLLER_NAMES).toEqual([
      'cloud-node-controller',
      'service-lb-controller',
      'node-route-controller',
      'cloud-node-lifecycle-controller',
    ]);
    for (const name of cp.CLOUD_CONTROLLER_NAMES) expect(name).toMatch(/^[a-z]([-a-z]*[a-z])?-controller$/);
    expect(cp.CLOUD_CONTROLLER_ALIASES).toEqual({
      'cloud-node': 'cloud-node-controller',
      service: 'service-lb-controller',
      route: 'node-route-controller',
      'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
    });
    expect(Object.isFrozen(cp.CLOUD_CONTROLLER_ALIASES)).toBe(true);
  });

  it('client names, event sources, lease, configz, volume constants', () => {
    expect(cp.NODE_CONTROLLER_CLIENT_NAME).toBe('node-controller');
    expect(cp.SERVICE_CONTROLLER_CLIENT_NAME).toBe('service-controller');
    expect(cp.ROUTE_CONTROLLER_CLIENT_NAME).toBe('route-controller');
    expect(cp.CLOUD_NODE_CONTROLLER_EVENT_SOURCE).toBe('cloud-node-controller');
    expect(cp.CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE).toBe('cloud-node-lifecycle-controller');
    expect(cp.SERVICE_CONTROLLER_EVENT_SOURCE).toBe('service-controller');
    expect(cp.ROUTE_CONTROLLER_EVENT_SOURCE).toBe('route_controller');
    expect(cp.CLOUD_CONTROLLER_MANAGER_EVENT_SOURCE).toBe('cloud-controller-manager');
    expect(`${cp.LEADER_ELECTION_LEASE_NAMESPACE}/${cp.LEADER_ELECTION_LEASE_NAME}`).toBe(
      'kube-system/cloud-controller-manager',
    );
    expect([cp.CONFIGZ_NAME, cp.CONFIGZ_KIND, cp.CONFIGZ_VERSION]).toEqual([
      'cloudcontrollermanager.config.k8s.io',
      'CloudControllerManagerConfiguration',
      'v1alpha1',
    ]);
    expect(cp.PROVISIONED_VOLUME_NAME).toBe('placeholder-for-provisioning');
    expect(cp.LABEL_MULTI_ZONE_DELIMITER).toBe('__');
  });
});
