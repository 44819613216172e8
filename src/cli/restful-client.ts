/**
 * A client of a RESTful MiniCluster's API (docs/restful-api.md): through the Kubernetes API
 * server's service proxy with the user's kubeconfig, or straight to a URL. The API server's proxy
 * authenticates the kubeconfig user itself and drops the Authorization header, so the API's own
 * credentials also travel in X-Flux-Restful-Authorization, which the server reads the same way.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export const PROXY_AUTHORIZATION_HEADER = 'X-Flux-Restful-Authorization';
export const RESTFUL_PORT_NAME = 'http';

export interface ApiCredentials {
  readonly user: string;
  readonly token: string;
}

/** Where the API is: a Service behind the API server's proxy, or a URL (e.g. a port-forward). */
export type ApiLocation =
  | {
      readonly kind: 'proxy';
      readonly config: KubeConfig;
      readonly namespace: string;
      readonly service: string;
    }
  | { readonly kind: 'url'; readonly url: string };

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The answer came from the Kubernetes API server (its proxy), not from the RESTful server. */
  readonly fromProxy: boolean;
  /** What a 401 asks for (flux-restful-client answers `Bearer` with the /v1/token handshake). */
  readonly wwwAuthenticate?: string;
}

/** A refusal or failure of the API, with what to do about it. */
export class RestfulApiError extends Error {
  readonly status: number;
  readonly wwwAuthenticate: string | undefined;

  constructor(status: number, message: string, wwwAuthenticate?: string) {
    super(message);
    this.name = 'RestfulApiError';
    this.status = status;
    this.wwwAuthenticate = wwwAuthenticate;
  }
}

/** A job as `GET /v1/jobs/{id}` describes it (the fields this client reads). */
export interface JobRecord {
  readonly id: number;
  readonly jobid?: string;
  readonly name?: string;
  readonly state: string;
  readonly result?: string;
  readonly status?: string;
  readonly returncode?: number | string;
  readonly nnodes?: number | string;
  readonly ntasks?: number | string;
  readonly nodelist?: string;
  readonly runtime?: number | string;
  readonly [other: string]: unknown;
}

export interface SubmitRequest {
  readonly command: string;
  readonly num_tasks?: number;
  readonly num_nodes?: number;
  readonly cores_per_task?: number;
  readonly gpus_per_task?: number;
  readonly exclusive?: boolean;
  readonly workdir?: string;
  readonly envars?: Record<string, string>;
  readonly option_flags?: Record<string, string>;
  readonly runtime?: number;
}

function basic({ user, token }: ApiCredentials): string {
  return `Basic ${Buffer.from(`${user}:${token}`, 'utf8').toString('base64')}`;
}

function describe(location: ApiLocation): string {
  return location.kind === 'url'
    ? location.url
    : `Service ${location.namespace}/${location.service} (through the Kubernetes API server)`;
}

async function send(
  location: ApiLocation,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<ApiAnswer> {
  let url: URL;
  const options: RequestOptions & { rejectUnauthorized?: boolean } = { method, headers: { ...headers } };
  if (location.kind === 'proxy') {
    const server = location.config.getCurrentCluster()?.server;
    if (!server) throw new RestfulApiError(0, 'the kubeconfig has no current cluster');
    const base = server.replace(/\/+$/, '');
    url = new URL(
      `${base}/api/v1/namespaces/${encodeURIComponent(location.namespace)}/services/${encodeURIComponent(location.service)}:${RESTFUL_PORT_NAME}/proxy${path}`,
    );
    await location.config.applyToHTTPSOptions(options);
  } else {
    url = new URL(`${location.url.replace(/\/+$/, '')}${path}`);
  }
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<ApiAnswer>((resolve, reject) => {
    const request = send(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? {} : JSON.parse(text);
        } catch {
          // Not JSON: a proxy's plain-text error, kept as text.
        }
        const fromProxy =
          location.kind === 'proxy' &&
          typeof parsed === 'object' &&
          parsed !== null &&
          (parsed as { kind?: unknown }).kind === 'Status';
        const challenge = response.headers['www-authenticate'];
        resolve({
          status: response.statusCode ?? 0,
          body: parsed,
          fromProxy,
          ...(challenge !== undefined ? { wwwAuthenticate: challenge } : {}),
        });
      });
      response.on('error', reject);
    });
    request.setTimeout(120_000, () => request.destroy(new Error('no answer within 120 s')));
    request.on('error', (error) =>
      reject(
        new RestfulApiError(0, `cannot reach the RESTful API at ${describe(location)}: ${error.message}`),
      ),
    );
    request.end(body);
  });
}

/**
 * The API server's proxy could not write the request to the pod: it reused a connection the server
 * had just closed as idle (its keep-alive ended as the request came). The server read nothing of it,
 * so sending it once more is safe, a submit too; any other proxy failure is reported as it is.
 */
export function proxyWriteReset(answer: ApiAnswer): boolean {
  return (
    answer.fromProxy &&
    [502, 503].includes(answer.status) &&
    /error trying to reach service: .*write: (connection reset by peer|broken pipe)/.test(
      messageOf(answer.body),
    )
  );
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body.trim();
  if (typeof body !== 'object' || body === null) return '';
  const { Message, message, Error: error, Errors } = body as Record<string, unknown>;
  const parts = [Message ?? message, error, ...(Array.isArray(Errors) ? Errors : [])];
  return parts.filter((part) => typeof part === 'string' && part !== '').join(': ');
}

export class RestfulClient {
  readonly location: ApiLocation;
  private readonly credentials: ApiCredentials;

  constructor(location: ApiLocation, credentials: ApiCredentials) {
    this.location = location;
    this.credentials = credentials;
  }

  /** One call; answers other than 2xx become RestfulApiError with a message saying what to do. */
  async call(method: 'GET' | 'POST', path: string, payload?: object): Promise<unknown> {
    return this.callWith(method, path, basic(this.credentials), payload);
  }

  /** A call with this Authorization value (e.g. a bearer token of /v1/token) instead of Basic. */
  async callWith(
    method: 'GET' | 'POST',
    path: string,
    authorization: string,
    payload?: object,
  ): Promise<unknown> {
    const headers: Record<string, string> = {
      [PROXY_AUTHORIZATION_HEADER]: authorization,
      accept: 'application/json',
    };
    if (this.location.kind === 'url') headers.authorization = authorization;
    let body: string | undefined;
    if (payload !== undefined) {
      body = JSON.stringify(payload);
      headers['content-type'] = 'application/json';
    }
    let answer = await send(this.location, method, path, headers, body);
    if (proxyWriteReset(answer)) answer = await send(this.location, method, path, headers, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    throw this.failure(answer);
  }

  private failure(answer: ApiAnswer): RestfulApiError {
    const where = describe(this.location);
    const said = messageOf(answer.body);
    if (answer.fromProxy || (this.location.kind === 'proxy' && [502, 503].includes(answer.status))) {
      if (answer.status === 404) {
        return new RestfulApiError(404, `the RESTful API's Service is not there (${where}): ${said}`);
      }
      if (answer.status === 401 || answer.status === 403) {
        return new RestfulApiError(
          answer.status,
          `the Kubernetes API server refused the kubeconfig's user the service proxy of ${where}: ${said}`,
        );
      }
      return new RestfulApiError(
        answer.status,
        `the RESTful API is not ready yet (${where}: ${said}); the lead pod may still be starting, try again shortly`,
      );
    }
    if (answer.status === 401) {
      return new RestfulApiError(
        401,
        `unauthorized: the RESTful API refused user ${this.credentials.user} and its token (${said || 'no message'}); check --user and --token or the Secret`,
        answer.wwwAuthenticate,
      );
    }
    return new RestfulApiError(answer.status, `${where} answered ${answer.status}: ${said || 'no message'}`);
  }

  async nodes(): Promise<string[]> {
    return ((await this.call('GET', '/v1/nodes')) as { nodes: string[] }).nodes;
  }

  async submit(request: SubmitRequest): Promise<number> {
    return ((await this.call('POST', '/v1/jobs/submit', request)) as { id: number }).id;
  }

  async jobs(): Promise<JobRecord[]> {
    return (await this.call('GET', '/v1/jobs?details=true&listing=true')) as JobRecord[];
  }

  async job(id: string | number): Promise<JobRecord> {
    return (await this.call('GET', `/v1/jobs/${encodeURIComponent(String(id))}`)) as JobRecord;
  }

  /** The output so far: each piece as the job wrote it (stdout and stderr, in order). */
  async output(id: string | number): Promise<string[]> {
    const body = (await this.call('GET', `/v1/jobs/${encodeURIComponent(String(id))}/output`)) as {
      Output?: string[];
    };
    return body.Output ?? [];
  }

  async cancel(id: string | number): Promise<string> {
    const body = await this.call('POST', `/v1/jobs/${encodeURIComponent(String(id))}/cancel`);
    return messageOf(body);
  }
}

/** A job that has ended (INACTIVE). */
export function isFinished(job: JobRecord): boolean {
  return job.state === 'INACTIVE';
}
