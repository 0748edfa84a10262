/**
 * An error answer of the mock API: the HTTP status, a machine-readable code and a message.
 * Handlers throw it; the server turns it into a `WireError` body.
 */
export class ApiProblem extends Error {
  constructor(
    /** HTTP status, for example 404. */
    readonly status: number,
    /** Machine-readable code, for example `not_found` (see `WireError`). */
    readonly code: string,
    message: string,
    /** Extra response headers, for example `Retry-After`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

/** `400 invalid_input` listing every problem found. */
export function invalidInput(problems: string[]): ApiProblem {
  return new ApiProblem(400, 'invalid_input', problems.join('; '));
}

/** `404 not_found` for a resource kind and ID. */
export function notFound(kind: string, id: string): ApiProblem {
  return new ApiProblem(404, 'not_found', `${kind} ${id} not found`);
}
