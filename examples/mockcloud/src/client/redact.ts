/**
 * Credentials in URLs are never printed: config logs, config errors and network errors pass through here.
 */

/**
 * `text` with the credentials of every URL in it (`scheme://user:password@`) replaced by `***@`, for messages and
 * logs; works on text that is not a valid URL too.
 */
export function redactURL(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@?#\s]*@/gi, '$1***@');
}
