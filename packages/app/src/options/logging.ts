/**
 * The global flags: verbosity and log format (k8s.io/component-base `logs` and klog), `--version`, `--help`.
 */
import { nonNegative, num, type OptionGroup, str } from './option-group.js';

/** What the group yields. */
export interface LoggingConfig {
  verbosity: number;
  /** `--vmodule` as given (accepted; ccm-kit has one verbosity for every module). */
  vmodule: string;
  loggingFormat: 'text' | 'json';
}

export const loggingOptions: OptionGroup<LoggingConfig> = {
  addFlags(fss) {
    fss
      .flagSet('global')
      .int('v', 0, 'number for the log level verbosity', { shorthand: 'v', validate: nonNegative })
      .string('logging-format', 'text', 'Sets the log format. Permitted formats: "json", "text".', {
        validate: (v) => {
          if (v !== 'text' && v !== 'json') throw new Error('unsupported log format; permitted formats: "json", "text"');
        },
      })
      .string(
        'vmodule',
        '',
        'comma-separated list of pattern=N settings for file-filtered logging (only works for text log format)',
        {
          validate: (v) => {
            for (const item of v.split(',')) {
              if (item === '') continue;
              if (!/^[^=]+=\d+$/.test(item)) {
                throw new Error(`expect comma-separated list of filename=N, got ${JSON.stringify(item)}`);
              }
            }
          },
        },
      )
      .duration('log-flush-frequency', 5_000, 'Maximum number of seconds between log flushes')
      .bool('version', false, 'Print version information and quit')
      .bool('help', false, 'help for cloud-controller-manager', { shorthand: 'h' });
  },
  validate: () => [],
  applyTo: (v) => ({
    verbosity: num(v, 'v'),
    vmodule: str(v, 'vmodule'),
    loggingFormat: str(v, 'logging-format') as 'text' | 'json',
  }),
};
