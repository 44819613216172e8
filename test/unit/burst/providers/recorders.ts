// Recording transports for the cloud SDKs: the seams the SDKs offer (a fetch for Google's auth and
// HTTP/JSON clients, a requestHandler for the AWS SDK) answering from scripted replies, strictly in
// order, and recording every request. A request that is not the next expected one gets a 400.

/** A scripted answer to a Google API or token request. */
export interface GoogleReply {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly json: unknown;
}

export interface GoogleCall {
  readonly method: string;
  readonly url: string;
  /** JSON bodies parsed, form bodies (the token exchange) as an object of their fields. */
  readonly body: unknown;
  readonly authorization: string | null;
}

function decodeBody(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (body instanceof URLSearchParams) return Object.fromEntries(body);
  const text = typeof body === 'string' ? body : Buffer.from(body as Uint8Array).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}

export function fakeGoogle(replies: readonly GoogleReply[]): {
  calls: GoogleCall[];
  fetch: typeof fetch;
  left: () => number;
} {
  const calls: GoogleCall[] = [];
  const queue = [...replies];
  const fake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    calls.push({ method, url, body: decodeBody(init?.body), authorization: headers.get('authorization') });
    const next = queue.shift();
    if (!next || next.method !== method || next.url !== url) {
      const error = { code: 400, message: `unexpected ${method} ${url}`, status: 'INVALID_ARGUMENT' };
      return Response.json({ error }, { status: 400 });
    }
    return Response.json(next.json, { status: next.status });
  };
  return { calls, fetch: fake as typeof fetch, left: () => queue.length };
}

/** A scripted answer to an AWS API request; `errorType` becomes the x-amzn-errortype header. */
export interface AwsReply {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly json: unknown;
  readonly errorType?: string;
}

export interface AwsCall {
  readonly method: string;
  readonly host: string;
  readonly path: string;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
}

/** The part of a Smithy HttpRequest the recorder reads. */
interface SmithyRequest {
  readonly method: string;
  readonly hostname: string;
  readonly path: string;
  readonly query?: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

/** A requestHandler (the AWS SDK's transport option) recording requests and answering `replies`. */
export function fakeAws(replies: readonly AwsReply[]) {
  const calls: AwsCall[] = [];
  const queue = [...replies];
  const handler = {
    handle(request: SmithyRequest) {
      const body =
        request.body === undefined
          ? undefined
          : (JSON.parse(new TextDecoder().decode(request.body as Uint8Array)) as unknown);
      calls.push({
        method: request.method,
        host: request.hostname,
        path: request.path,
        query: { ...request.query },
        body,
        contentType: request.headers['content-type'],
        authorization: request.headers.authorization,
      });
      const next = queue.shift();
      const reply: AwsReply =
        next !== undefined && next.method === request.method && next.path === request.path
          ? next
          : {
              method: '',
              path: '',
              status: 400,
              json: { message: `unexpected ${request.method} ${request.path}` },
              errorType: 'InvalidRequestException',
            };
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (reply.errorType) headers['x-amzn-errortype'] = reply.errorType;
      return Promise.resolve({
        response: {
          statusCode: reply.status,
          headers,
          body: new TextEncoder().encode(JSON.stringify(reply.json)),
        },
      });
    },
  };
  return { calls, handler, left: () => queue.length };
}
