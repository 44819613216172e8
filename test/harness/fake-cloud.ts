// Clouds for controller tests: a GKE project and an EKS region that remember their clusters, behind the
// same seams the providers' unit tests record through (the `fetch` of Google's auth client, the AWS
// SDK's `requestHandler`), answering in the shapes of the recorded API replies. The real SDKs, the
// real providers and the real connectors run; only the cloud's side is played here, and every request
// is recorded. A controller checks with backoff, so unlike the unit tests' scripted queues these
// answer from their state, whatever the order.

/** A cluster as a cloud keeps it. */
export interface FakeCluster {
  status: string;
  /** GKE resource labels / EKS tags. */
  marks?: Record<string, string>;
  /** GKE: `host:port` of the API server; EKS: its https URL. */
  endpoint?: string;
  /** Base64 PEM of its CA. */
  caData?: string;
}

export interface CloudCall {
  readonly method: string;
  /** Path of the cluster or collection (no host, no query). */
  readonly path: string;
  readonly body: unknown;
}

const GKE_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/clusters(?:\/([^/]+))?$/;

/** A GKE API (container.googleapis.com, HTTP/JSON) and OAuth token endpoint over `clusters`. */
export function fakeGke(
  clusters: Map<string, FakeCluster>,
  options: { readonly accessToken: string; readonly created: (name: string) => FakeCluster },
) {
  const calls: CloudCall[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const body = text === undefined ? undefined : parseBody(text);
    calls.push({ method, path: url.pathname, body });
    if (url.hostname === 'oauth2.googleapis.com' && url.pathname === '/token' && method === 'POST') {
      return Response.json({ access_token: options.accessToken, expires_in: 3599, token_type: 'Bearer' });
    }
    const match = url.hostname === 'container.googleapis.com' ? GKE_PATH.exec(url.pathname) : null;
    if (!match) return googleError(400, 'INVALID_ARGUMENT', `unexpected ${method} ${url.href}`);
    const name = match[3];
    if (name === undefined && method === 'POST') {
      const cluster = (body as { cluster?: { name?: string; resourceLabels?: Record<string, string> } })
        .cluster;
      const wanted = cluster?.name ?? '';
      if (clusters.has(wanted)) return googleError(409, 'ALREADY_EXISTS', `Already exists: ${wanted}`);
      clusters.set(wanted, { ...options.created(wanted), marks: { ...cluster?.resourceLabels } });
      return Response.json({ name: `operation-create-${wanted}`, status: 'RUNNING' });
    }
    const cluster = name === undefined ? undefined : clusters.get(name);
    if (name === undefined || !cluster) return googleError(404, 'NOT_FOUND', `Not found: ${url.pathname}`);
    if (method === 'GET') {
      return Response.json({
        name,
        status: cluster.status,
        ...(cluster.endpoint ? { endpoint: cluster.endpoint } : {}),
        ...(cluster.caData ? { masterAuth: { clusterCaCertificate: cluster.caData } } : {}),
        ...(cluster.marks ? { resourceLabels: cluster.marks } : {}),
      });
    }
    if (method === 'DELETE') {
      clusters.delete(name);
      return Response.json({ name: `operation-delete-${name}`, operationType: 'DELETE_CLUSTER' });
    }
    return googleError(400, 'INVALID_ARGUMENT', `unexpected ${method} ${url.href}`);
  };
  return { calls, fetch: fetchImpl as typeof fetch };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}

function googleError(code: number, status: string, message: string): Response {
  return Response.json({ error: { code, message, status } }, { status: code });
}

/** The part of a Smithy HttpRequest read here. */
interface SmithyRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

const EKS_PATH = /^\/clusters(?:\/([^/]+))?(?:\/node-groups(?:\/([^/]+))?)?$/;

/** An EKS API over `clusters` (node groups: only read, always absent). */
export function fakeEks(clusters: Map<string, FakeCluster>) {
  const calls: CloudCall[] = [];
  const answer = (status: number, json: unknown, errorType?: string) =>
    Promise.resolve({
      response: {
        statusCode: status,
        headers: {
          'content-type': 'application/json',
          ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
        },
        body: new TextEncoder().encode(JSON.stringify(json)),
      },
    });
  const handler = {
    handle(request: SmithyRequest) {
      const body =
        request.body === undefined
          ? undefined
          : (JSON.parse(new TextDecoder().decode(request.body as Uint8Array)) as unknown);
      calls.push({ method: request.method, path: request.path, body });
      const match = EKS_PATH.exec(request.path);
      const name = match?.[1];
      const cluster = name === undefined ? undefined : clusters.get(name);
      if (
        request.method === 'GET' &&
        cluster &&
        name !== undefined &&
        !request.path.includes('/node-groups')
      ) {
        return answer(200, {
          cluster: {
            name,
            status: cluster.status,
            ...(cluster.endpoint ? { endpoint: cluster.endpoint } : {}),
            ...(cluster.caData ? { certificateAuthority: { data: cluster.caData } } : {}),
            ...(cluster.marks ? { tags: cluster.marks } : {}),
          },
        });
      }
      if (request.method === 'GET') {
        return answer(
          404,
          { message: `No cluster found for name: ${name ?? ''}.` },
          'ResourceNotFoundException',
        );
      }
      return answer(
        400,
        { message: `unexpected ${request.method} ${request.path}` },
        'InvalidRequestException',
      );
    },
  };
  return { calls, handler };
}
