/** A mistake in the command line: printed with the command's usage, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
