import { errorMessage as sharedErrorMessage } from '@ccm-kit/cloud-provider/internal';

/**
 * The message of a thrown value: `err.message` for an Error, `String(err)` otherwise (the text ccm-kit's own
 * messages give for an error).
 */
export function errorMessage(err: unknown): string {
  return sharedErrorMessage(err);
}
