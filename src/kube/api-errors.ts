/**
 * Mapping of API errors, whichever client raised them: the operator's transport (KubeApiError), the
 * official client (ApiException, on the rare paths that load it) and its watch (`statusCode`). All
 * carry the HTTP status as a number; socket errors carry a string `code` (ECONNREFUSED) or none.
 * Duck-typed so that this module does not load the official client.
 */

interface HttpError {
  readonly code: number;
  readonly body?: unknown;
}

/** An Error with a numeric HTTP `code` (a DOMException's legacy numeric code is not one). */
function isHttpError(error: unknown): error is HttpError {
  if (!(error instanceof Error) || error instanceof DOMException) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code >= 100 && code < 600;
}

/** The HTTP code of an API error, if it is one. */
export function apiErrorCode(error: unknown): number | undefined {
  if (isHttpError(error)) return error.code;
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/** Unreachable (no HTTP status), throttled or failing on the server's side: it heals by itself. */
export function isTransient(error: unknown): boolean {
  const code = apiErrorCode(error);
  return code === undefined || code === 429 || code >= 500;
}

export function isNotFound(error: unknown): boolean {
  return apiErrorCode(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return apiErrorCode(error) === 409;
}

/**
 * A one-line description of an API error: the Status message the server sent, not the raw body
 * (which can echo the object sent, and so secret data).
 */
export function describeApiError(error: unknown): string {
  if (isHttpError(error)) {
    const body: unknown = error.body;
    let status: { message?: unknown; reason?: unknown } | undefined;
    if (typeof body === 'string') {
      try {
        status = JSON.parse(body) as { message?: unknown; reason?: unknown };
      } catch {
        status = undefined;
      }
    } else if (body && typeof body === 'object') status = body as { message?: unknown };
    const message = typeof status?.message === 'string' ? status.message : `HTTP ${error.code}`;
    return `${message} (HTTP ${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
