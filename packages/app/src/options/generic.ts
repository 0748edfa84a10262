/**
 * The generic controller-manager flags: informer resync, the API client connection, the controller start
 * interval and `--controllers`. Follows k8s.io/controller-manager `options/generic.go`
 * (`GenericControllerManagerConfigurationOptions`; leader election and debugging have modules of their own).
 */
import { resolveControllerAliases, validateControllerList } from './controller-selection.js';
import { list, nonNegative, num, type OptionGroup, str } from './option-group.js';

/** What the group yields. All durations in ms. */
export interface GenericConfig {
  /** `--kube-api-qps` (default 20): the client rate limiter's requests per second; negative disables it. */
  kubeApiQps: number;
  /** `--kube-api-burst` (default 30). */
  kubeApiBurst: number;
  /** `--kube-api-content-type`: the `Content-Type` of API requests. */
  kubeApiContentType: string;
  /** `--min-resync-period`, in milliseconds: informers resync at a random period between it and twice it. */
  minResyncPeriodMs: number;
  /** `--controller-start-interval`, in milliseconds: the pause between starting two controllers (0: none). */
  controllerStartIntervalMs: number;
  /** `--controllers` with aliases resolved (order and `-` kept). */
  controllers: string[];
}

export const genericOptions: OptionGroup<GenericConfig> = {
  addFlags(fss, known) {
    fss
      .flagSet('generic')
      .duration(
        'min-resync-period',
        12 * 3_600_000,
        'The resync period in reflectors will be random between MinResyncPeriod and 2*MinResyncPeriod.',
      )
      .string(
        'kube-api-content-type',
        'application/vnd.kubernetes.protobuf',
        'Content type of requests sent to apiserver.',
      )
      .float('kube-api-qps', 20, 'QPS to use while talking with kubernetes apiserver.', {
        validate: nonNegative,
        typeName: 'float32',
      })
      .int('kube-api-burst', 30, 'Burst to use while talking with kubernetes apiserver.', {
        validate: nonNegative,
        typeName: 'int32',
      })
      .duration('controller-start-interval', 0, 'Interval between starting controller managers.')
      .stringSlice(
        'controllers',
        ['*'],
        "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'." +
          `\nAll controllers: ${known.controllers.join(', ')}` +
          `\nDisabled-by-default controllers: ${known.controllersDisabledByDefault.join(', ')}`,
      );
  },
  validate(v, known) {
    return validateControllerList(list(v, 'controllers'), known.controllers, known.controllerAliases);
  },
  applyTo(v, known) {
    return {
      kubeApiQps: num(v, 'kube-api-qps'),
      kubeApiBurst: num(v, 'kube-api-burst'),
      kubeApiContentType: str(v, 'kube-api-content-type'),
      minResyncPeriodMs: num(v, 'min-resync-period'),
      controllerStartIntervalMs: num(v, 'controller-start-interval'),
      controllers: resolveControllerAliases(list(v, 'controllers'), known.controllerAliases),
    };
  },
};
