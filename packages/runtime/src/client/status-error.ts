/** Turning an API server's error answer into client-node's `ApiException`, as its generated clients do. */
import type { TransportResponse } from './transport-response.js';
import { ApiException } from './client-node-parts.js';

/**
 * Returns for a 2xx answer; otherwise reads the body and throws `ApiException` with the HTTP status as `code`,
 * the body text (a `metav1.Status`) as `body`, the headers, and a message `<what>: HTTP <code>: <Status message>`.
 */
export async function throwForStatus(resp: TransportResponse, what: string): Promise<void> {
  if (resp.status >= 200 && resp.status < 300) return;
  const text = await resp.text().catch(() => '');
  const headers: Record<string, string> = {};
  resp.headers.forEach((v, k) => {
    headers[k] = v;
  });
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    // not a Status
  }
  throw new ApiException(resp.status, `${what}: HTTP ${resp.status}: ${message}`, text, headers);
}
