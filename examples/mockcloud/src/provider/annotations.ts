/**
 * The Service annotations of the mockcloud provider, declared once with `defineAnnotations` from
 * `@ccm-kit/cloud-provider`: the same declaration parses Services (every problem names its annotation and the
 * expected form) and renders the README's annotation table. Any other annotation under the
 * `mockcloud.ccm-kit.io/` prefix is reported as unknown, so a typo is never silently ignored.
 */
import { defineAnnotations } from '@ccm-kit/cloud-provider';
import { MOCKCLOUD_ID_PATTERN } from '../client/ids.js';
import {
  ANNOTATION_HEALTH_CHECK_INTERVAL,
  ANNOTATION_LOAD_BALANCER_ID,
  ANNOTATION_NODE_SELECTOR,
  ANNOTATION_PREFIX,
  ANNOTATION_PROXY_PROTOCOL,
} from './names.js';

/** Every Service annotation of the provider. */
export const SERVICE_ANNOTATIONS = defineAnnotations(
  {
    loadBalancerID: {
      name: ANNOTATION_LOAD_BALANCER_ID,
      type: 'string',
      pattern: MOCKCLOUD_ID_PATTERN,
      patternText: 'a mockcloud ID (a letter or digit, then letters, digits, "-", "_" or "."; for example lb-000001)',
      description:
        'Written by the provider after it creates or finds the load balancer, and removed when it deletes that load balancer; set it yourself to **adopt** an existing load balancer (it gets the ownership labels; one owned by another cluster or Service is refused). An ID that does not exist is reported as a Warning Event and nothing is created; remove the annotation to let the provider create one.',
    },
    proxyProtocol: {
      name: ANNOTATION_PROXY_PROTOCOL,
      type: 'boolean',
      default: false,
      description: 'PROXY protocol on TCP listeners; the status gets `ipMode: Proxy`.',
    },
    nodeSelector: {
      name: ANNOTATION_NODE_SELECTOR,
      type: 'string',
      patternText: 'a label selector (e.g. pool=edge,!gpu)',
      description: 'Chooses the target Nodes among those the service controller passes.',
    },
    healthCheckInterval: {
      name: ANNOTATION_HEALTH_CHECK_INTERVAL,
      type: 'duration',
      minMs: 1000,
      maxMs: 300_000,
      defaultText: '`loadBalancer.healthCheckIntervalSeconds` of the config (5s)',
      description: 'Period of the health checks (rounded up to whole seconds).',
    },
  },
  { prefix: ANNOTATION_PREFIX },
);
