/**
 * `--feature-gates`: the gates the cloud-controller-manager knows, with their defaults, and component-base
 * `featuregate` semantics (`AllAlpha`, unknown gates rejected). The flag sits in the `generic` help section.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import type { OptionGroup } from './option-group.js';

/** Known feature gates and their defaults. */
export const KNOWN_FEATURE_GATES: Readonly<Record<string, boolean>> = Object.freeze({
  CloudControllerManagerWatchBasedRoutesReconciliation: false,
  CloudControllerManagerWebhook: false,
  ControllerManagerReleaseLeaderElectionLockOnExit: false,
});

/**
 * Gates upstream's binary also registers (component-base logging), accepted so that existing manifests keep
 * working; they change nothing in ccm-kit. `AllAlpha`/`AllBeta` are built into every Kubernetes feature gate.
 */
export const ACCEPTED_NO_OP_FEATURE_GATES: Readonly<Record<string, boolean>> = Object.freeze({
  AllAlpha: false,
  AllBeta: false,
  ContextualLogging: true,
  LoggingAlphaOptions: false,
  LoggingBetaOptions: true,
});

/** The alpha gates among {@link KNOWN_FEATURE_GATES} (what `AllAlpha=true` turns on). */
export const ALPHA_FEATURE_GATES: readonly string[] = Object.freeze(Object.keys(KNOWN_FEATURE_GATES));

const gatesOf = (v: Readonly<Record<string, unknown>>) => v['feature-gates'] as Record<string, boolean>;

export const featureGateOptions: OptionGroup<Pick<CloudControllerConfig, 'featureGates'>> = {
  addFlags(fss) {
    fss.flagSet('generic').mapStringBool(
      'feature-gates',
      {},
      // component-base featuregate.KnownFeatures(): sorted, AllAlpha and AllBeta first by name order.
      `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${[
        'AllAlpha=true|false (ALPHA - default=false)',
        'AllBeta=true|false (BETA - default=false)',
        ...Object.entries(KNOWN_FEATURE_GATES).map(([k, v]) => `${k}=true|false (ALPHA - default=${v})`),
      ].join('\n')}`,
    );
  },
  validate(v) {
    return Object.keys(gatesOf(v))
      .filter((g) => !(g in KNOWN_FEATURE_GATES) && !(g in ACCEPTED_NO_OP_FEATURE_GATES))
      .map((g) => `--feature-gates: unrecognized feature gate: ${g}`);
  },
  applyTo(v) {
    return { featureGates: effectiveFeatureGates(gatesOf(v)) };
  },
};

/**
 * The gates the controllers see: the known gates' defaults, `AllAlpha=true` turning on every alpha gate not
 * set explicitly (component-base featuregate semantics), then the explicit values. No-op gates are dropped.
 */
function effectiveFeatureGates(given: Readonly<Record<string, boolean>>): Record<string, boolean> {
  const out: Record<string, boolean> = { ...KNOWN_FEATURE_GATES };
  if (given.AllAlpha === true) for (const g of ALPHA_FEATURE_GATES) out[g] = true;
  for (const [g, v] of Object.entries(given)) if (g in KNOWN_FEATURE_GATES) out[g] = v;
  return out;
}
