/** `--profiling` and `--contention-profiling`, as k8s.io/controller-manager `options/debugging.go`. */
import { bool, type OptionGroup } from './option-group.js';

export const debuggingOptions: OptionGroup<{ profiling: boolean }> = {
  addFlags(fss) {
    fss
      .flagSet('debugging')
      .bool('profiling', true, 'Enable profiling via web interface host:port/debug/pprof/')
      .bool('contention-profiling', false, 'Enable block profiling, if profiling is enabled');
  },
  validate: () => [],
  applyTo: (v) => ({ profiling: bool(v, 'profiling') }),
};
