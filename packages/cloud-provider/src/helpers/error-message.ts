/**
 * The text of a thrown value, for the messages, events and log lines ccm-kit writes where upstream formats an
 * error with `%v` (Go's `err.Error()`).
 */

/**
 * The text of anything thrown: the `message` of an `Error` (without its `name`, and without its `cause`: a
 * wrapper's message already carries the cause's text, as Go's `fmt.Errorf("…: %w", err)` does), or
 * `String(err)` for any other value (a thrown string, number, `undefined`…). Reads nothing else: callers
 * that want the `Status` message of a Kubernetes API error read the error's `body` first.
 *
 * @param err - the value caught.
 * @returns the text to put after `": "` in a message; `''` for an `Error` with an empty message.
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
