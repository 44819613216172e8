import { ApiException } from '@kubernetes/client-node';

/** The HTTP code of an API error, if it is one (the client's watch reports it as `statusCode`). */
export function apiErrorCode(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
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
  if (error instanceof ApiException) {
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
