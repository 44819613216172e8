/**
 * Whether the webhook answers through its Service, as the API server will reach it: by the Service's
 * DNS name (from inside the cluster, where the operator runs in service mode), TLS verified against
 * the CA bundle, a ConversionReview of no objects answered with its uid. The operator points the CRD
 * at its Service only once this holds, so that it never trades a webhook that answers for one that
 * does not yet (its pods not Ready).
 */
import { request } from 'node:https';
import { CONVERSION_WEBHOOK_PATH } from '../../api/index.ts';
import { CONVERSION_REVIEW_API_VERSION, CONVERSION_REVIEW_KIND } from './review.ts';

const PROBE_TIMEOUT_MS = 3_000;

/**
 * Whether `url` answers a ConversionReview of no objects with its uid, over TLS verified against `ca`
 * (for `servername` when given, else the URL's host).
 */
export function conversionReviewAnswers(
  url: URL,
  ca: string,
  options: { readonly servername?: string; readonly timeoutMs: number },
): Promise<boolean> {
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
          try {
            resolve(
              res.statusCode === 200 &&
                (JSON.parse(text) as { response?: { uid?: string } }).response?.uid === uid,
            );
          } catch {
            resolve(false);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

export function serviceAnswers(
  service: { readonly namespace: string; readonly name: string; readonly port?: number },
  caBundle: string,
): Promise<boolean> {
  const url = new URL(
    `https://${service.name}.${service.namespace}.svc:${service.port ?? 443}${CONVERSION_WEBHOOK_PATH}`,
  );
  return conversionReviewAnswers(url, caBundle, { timeoutMs: PROBE_TIMEOUT_MS });
}
