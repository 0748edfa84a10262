import { errorMessage } from '@ccm-kit/cloud-provider/internal';

/**
 * The text of an error from a Kubernetes API call or a cloud call, as Go's `err.Error()` would read in the
 * service controller's messages and events (upstream formats them with `%v`).
 */

/** The `message` of a Kubernetes `Status` given as an object or as its JSON text; `undefined` otherwise. */
function statusMessage(body: unknown): string | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const status = value as { kind?: unknown; message?: unknown };
  return status.kind === 'Status' && typeof status.message === 'string' && status.message !== ''
    ? status.message
    : undefined;
}

/**
 * For a Kubernetes API error (client-node's `ApiException`: a `body` holding a `Status`): the Status message,
 * which is client-go's `StatusError` text (`services "x" not found`), instead of client-node's
 * `HTTP-Code: …\nMessage: …\nBody: …\nHeaders: …` dump. Otherwise the error's `message`, or `String(err)`
 * for a non-Error. Only `err` itself is read, never its `cause`: a wrapper's own text wins, as in Go.
 */
export function errorText(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'body' in err) {
    const message = statusMessage(err.body);
    if (message !== undefined) return message;
  }
  return errorMessage(err);
}
