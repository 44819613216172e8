/**
 * What a request wrote, read from its method, path and content type: the one place the operator's
 * writes are told apart (flux_operator_api_writes_total counts what this returns for each answered
 * request of the transport).
 */

export type WriteVerb = 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'deletecollection';

export interface Write {
  readonly verb: WriteVerb;
  /** The resource as RBAC names it: `jobs`, `miniclusters/status`, `serviceaccounts/token`. */
  readonly resource: string;
}

const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * The write a request made, undefined for reads and watches, dry runs and reviews (they store nothing).
 * `path` is below the server's URL, with its query: /api/v1/namespaces/ns/secrets?fieldManager=x.
 */
export function writeOf(request: {
  readonly method: string;
  readonly path: string;
  readonly contentType?: string | undefined;
}): Write | undefined {
  const { method } = request;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return undefined;
  const queryAt = request.path.indexOf('?');
  const path = queryAt < 0 ? request.path : request.path.slice(0, queryAt);
  if (queryAt >= 0 && new URLSearchParams(request.path.slice(queryAt + 1)).has('dryRun')) return undefined;
  const segments = path.split('/').filter((segment) => segment !== '');
  // /api/<version>/... or /apis/<group>/<version>/...
  let rest = segments.slice(segments[0] === 'api' ? 2 : 3);
  // A namespaced resource (/namespaces/<ns>/<resource>...), not the namespace itself.
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource = '', name, subresource] = rest;
  const label = subresource === undefined ? resource : `${resource}/${subresource}`;
  switch (method) {
    case 'POST':
      // A TokenReview or an access review is asked of the API server, never stored.
      return resource.endsWith('reviews') ? undefined : { verb: 'create', resource: label };
    case 'PUT':
      return { verb: 'update', resource: label };
    case 'PATCH':
      return { verb: request.contentType === APPLY_PATCH ? 'apply' : 'patch', resource: label };
    case 'DELETE':
      return { verb: name === undefined ? 'deletecollection' : 'delete', resource: label };
    default:
      return undefined;
  }
}
