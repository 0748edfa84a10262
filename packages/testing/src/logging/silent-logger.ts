import type { Logger } from '@ccm-kit/runtime';

/** A Logger that writes nothing, at every verbosity: for controllers under test whose logs are noise. */
export const silentLogger: Logger = {
  name: 'test',
  info() {},
  warn() {},
  error() {},
  v: () => ({ enabled: false, info() {} }),
  with: () => silentLogger,
};
