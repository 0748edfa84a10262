/**
 * The global flags: verbosity and log format (k8s.io/component-base `logs/api/v1` `AddFlags` and klog), the
 * alpha output options (`--log-{text,json}-split-stream`, `--log-{text,json}-info-buffer-size`, gated by
 * `LoggingAlphaOptions` as upstream), `--version`, `--help`.
 */
import { parseByteQuantity } from './quantity.js';
import { type FlagValues, nonNegative, num, type OptionGroup, str } from './option-group.js';

/** What the group yields. */
export interface LoggingConfig {
  /** `-v`/`--v`: the log verbosity (klog levels, 0 = default). */
  verbosity: number;
  /** `--vmodule` as given (accepted; ccm-kit has one verbosity for every module). */
  vmodule: string;
  /** `--logging-format`: `text` (klog lines) or `json`. */
  loggingFormat: 'text' | 'json';
  /** `--log-<format>-split-stream` of the chosen format: info lines to stdout, errors to stderr. */
  splitStream: boolean;
  /** `--log-<format>-info-buffer-size` of the chosen format, in **bytes** (0: unbuffered). */
  infoBufferSize: number;
  /** `--log-flush-frequency`, in milliseconds: how often buffered info lines are written out. */
  flushFrequencyMs: number;
}

const quantity = { typeName: 'quantity', defaultText: '', validate: (v: string) => void parseByteQuantity(v) };

/** The output flags of one format, with upstream's texts (component-base `logs/api/v1/options.go`). */
const outputFlags = (format: 'JSON' | 'text') => ({
  split: `[Alpha] In ${format} format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stdout. Enable the LoggingAlphaOptions feature gate to use this.`,
  buffer: `[Alpha] In ${format} format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering. The size can be specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi). Enable the LoggingAlphaOptions feature gate to use this.`,
});

const alphaGate = (v: FlagValues) => (v['feature-gates'] as Record<string, boolean>).LoggingAlphaOptions === true;

export const loggingOptions: OptionGroup<LoggingConfig> = {
  addFlags(fss) {
    const set = fss
      .flagSet('global')
      .int('v', 0, 'number for the log level verbosity', { shorthand: 'v', validate: nonNegative, typeName: 'Level' })
      .string(
        'logging-format',
        'text',
        'Sets the log format. Permitted formats: "json" (gated by LoggingBetaOptions), "text".',
        {
          validate: (v) => {
            if (v !== 'text' && v !== 'json')
              throw new Error('unsupported log format; permitted formats: "json", "text"');
          },
        },
      )
      .string(
        'vmodule',
        '',
        'comma-separated list of pattern=N settings for file-filtered logging (only works for text log format)',
        {
          typeName: 'pattern=N,...',
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
      .duration('log-flush-frequency', 5_000, 'Maximum number of seconds between log flushes');
    for (const [prefix, format] of [
      ['log-json', 'JSON'],
      ['log-text', 'text'],
    ] as const) {
      const text = outputFlags(format);
      set
        .bool(`${prefix}-split-stream`, false, text.split)
        .string(`${prefix}-info-buffer-size`, '0', text.buffer, quantity);
    }
    set
      .string(
        'version',
        'false',
        '--version, --version=raw prints version information and quits; --version=vX.Y.Z... sets the reported version',
        { typeName: 'version', noOptDefVal: 'true', defaultText: '' },
      )
      .bool('help', false, 'help for cloud-controller-manager', { shorthand: 'h' });
  },
  validate(v) {
    // component-base logs/api/v1 validateFormatOptions: the alpha output options need the LoggingAlphaOptions gate.
    const problems: string[] = [];
    for (const [prefix, field] of [
      ['log-text', 'text'],
      ['log-json', 'json'],
    ] as const) {
      if (alphaGate(v)) break;
      if (v[`${prefix}-split-stream`] === true) {
        problems.push(
          `--${prefix}-split-stream: options.${field}.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled`,
        );
      }
      if (parseByteQuantity(str(v, `${prefix}-info-buffer-size`)) !== 0) {
        problems.push(
          `--${prefix}-info-buffer-size: options.${field}.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled`,
        );
      }
    }
    return problems;
  },
  applyTo(v) {
    const format = str(v, 'logging-format') as 'text' | 'json';
    return {
      verbosity: num(v, 'v'),
      vmodule: str(v, 'vmodule'),
      loggingFormat: format,
      splitStream: v[`log-${format}-split-stream`] === true,
      infoBufferSize: parseByteQuantity(str(v, `log-${format}-info-buffer-size`)),
      flushFrequencyMs: num(v, 'log-flush-frequency'),
    };
  },
};
