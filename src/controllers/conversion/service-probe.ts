/**
 * Whether a conversion webhook answers where a CRD's clientConfig sends the API server, reached as
 * the API server reaches it, and why not when it does not. A URL is called as it is; a Service is
 * read through the API, its ready endpoints counted, then called at its ClusterIP (which is what the
 * API server dials) with TLS verified for its DNS name `<name>.<namespace>.svc`. Either way a
 * ConversionReview of no objects must come back with its uid. The operator checks its own webhook
 * so (it points the CRD only at one that answers, and logs why one does not); the test harness
 * checks a CRD's webhook the same way.
 */
import { request } from 'node:https';
import { CONVERSION_WEBHOOK_PATH, type ConversionClientConfig } from '../../api/index.ts';
import { apiErrorCode, describeApiError } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';
import { CONVERSION_REVIEW_API_VERSION, CONVERSION_REVIEW_KIND } from './review.ts';

export const PROBE_TIMEOUT_MS = 3_000;

/** It answers, or the reason it does not, in words a log line can carry. */
export type Reachability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const ANSWERS: Reachability = { ok: true };

function errorText(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/**
 * A ConversionReview of no objects POSTed to `url` over TLS verified against `ca` (for `servername`
 * when given, else the URL's host): answered with its uid, or the reason it was not.
 */
export function conversionReviewReach(
  url: URL,
  ca: string,
  options: { readonly servername?: string; readonly timeoutMs: number },
): Promise<Reachability> {
  const uid = `self-check-${Date.now()}`;
  const body = JSON.stringify({
    apiVersion: CONVERSION_REVIEW_API_VERSION,
    kind: CONVERSION_REVIEW_KIND,
    request: { uid, desiredAPIVersion: 'flux-framework.org/v1alpha1', objects: [] },
  });
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca,
        ...(options.servername ? { servername: options.servername } : {}),
        agent: false,
        timeout: options.timeoutMs,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) {
            resolve({
              ok: false,
              reason: `it answered HTTP ${res.statusCode ?? '?'}: ${text.slice(0, 200)}`,
            });
            return;
          }
          try {
            const answer = JSON.parse(text) as { response?: { uid?: string } };
            resolve(
              answer.response?.uid === uid
                ? ANSWERS
                : { ok: false, reason: 'it answered something other than the ConversionReview sent' },
            );
          } catch {
            resolve({ ok: false, reason: 'it answered something that is not JSON' });
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (error) => resolve({ ok: false, reason: errorText(error) }));
    req.end(body);
  });
}

/** Whether `conversionReviewReach` got an answer (the harness's yes-or-no form). */
export async function conversionReviewAnswers(
  url: URL,
  ca: string,
  options: { readonly servername?: string; readonly timeoutMs: number },
): Promise<boolean> {
  return (await conversionReviewReach(url, ca, options)).ok;
}

interface EndpointSliceList {
  items?: { endpoints?: { conditions?: { ready?: boolean | null } }[] | null }[];
}

/** The webhook behind a Service, reached at its ClusterIP as the API server does. */
async function serviceReach(
  transport: Transport,
  service: {
    readonly namespace: string;
    readonly name: string;
    readonly port?: number;
    readonly path?: string;
  },
  ca: string,
  timeoutMs: number,
): Promise<Reachability> {
  const { namespace, name } = service;
  let clusterIP: string | undefined;
  try {
    const found = await transport.request<{ spec?: { clusterIP?: string } }>(
      'GET',
      `/api/v1/namespaces/${namespace}/services/${name}`,
      { timeoutMs },
    );
    clusterIP = found.spec?.clusterIP;
  } catch (error) {
    return {
      ok: false,
      reason:
        apiErrorCode(error) === 404
          ? `there is no Service ${namespace}/${name}`
          : `cannot read the Service: ${describeApiError(error)}`,
    };
  }
  try {
    const slices = await transport.request<EndpointSliceList>(
      'GET',
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${name}`)}`,
      { timeoutMs },
    );
    const ready = (slices.items ?? [])
      .flatMap((slice) => slice.endpoints ?? [])
      .filter((endpoint) => endpoint.conditions?.ready !== false).length;
    if (ready === 0) {
      return {
        ok: false,
        reason:
          'the Service has no ready endpoint (no operator pod behind it is Ready, or its selector matches none)',
      };
    }
  } catch (error) {
    // Not allowed (an install whose Role predates the rule, or leader election off in the chart):
    // the call itself says what it can.
    if (apiErrorCode(error) !== 403) {
      return { ok: false, reason: `cannot read the Service's endpoints: ${describeApiError(error)}` };
    }
  }
  if (!clusterIP || clusterIP === 'None') {
    return { ok: false, reason: `the Service has no cluster IP for the API server to call` };
  }
  const url = new URL(
    `https://${clusterIP.includes(':') ? `[${clusterIP}]` : clusterIP}:${service.port ?? 443}${service.path ?? CONVERSION_WEBHOOK_PATH}`,
  );
  const reach = await conversionReviewReach(url, ca, { servername: `${name}.${namespace}.svc`, timeoutMs });
  return reach.ok ? reach : { ok: false, reason: `at ${url.host}: ${reach.reason}` };
}

/**
 * Whether the webhook `config` names (a URL or a Service, with its caBundle, base64 as in the CRD)
 * answers a ConversionReview as the API server would send it, or why not.
 */
export async function webhookReach(
  transport: Transport,
  config: ConversionClientConfig,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Reachability> {
  if (!config.caBundle) return { ok: false, reason: 'its clientConfig has no caBundle to verify it with' };
  const ca = Buffer.from(config.caBundle, 'base64').toString('utf8');
  if ('url' in config) return conversionReviewReach(new URL(config.url), ca, { timeoutMs });
  return serviceReach(transport, config.service, ca, timeoutMs);
}
