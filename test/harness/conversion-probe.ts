// Whether a conversion webhook answers where a CRD's clientConfig says, checked as the API server checks
// it: TLS verified against the caBundle, for the URL's host or the Service's DNS name, and a
// ConversionReview answered with its uid. A Service is reached at its ClusterIP, from this machine, the
// way the local API server reaches it (the real node's kube-proxy routes it).
import { request } from 'node:https';
import type { ConversionClientConfig } from '../../src/api/index.ts';
import type { Transport } from '../../src/kube/transport.ts';

const PROBE_TIMEOUT_MS = 2_000;

function post(url: URL, ca: string, servername: string | undefined): Promise<boolean> {
  const uid = `probe-${Date.now()}`;
  const body = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: 'flux-framework.org/v1alpha1', objects: [] },
  });
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca,
        ...(servername ? { servername } : {}),
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
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

/** True when the webhook the clientConfig names answers a ConversionReview over verified TLS. */
export async function conversionWebhookAnswers(
  transport: Transport,
  config: ConversionClientConfig,
): Promise<boolean> {
  if (!config.caBundle) return false;
  const ca = Buffer.from(config.caBundle, 'base64').toString('utf8');
  if ('url' in config) return post(new URL(config.url), ca, undefined);
  const { namespace, name, port, path } = config.service;
  try {
    const service = await transport.request<{ spec?: { clusterIP?: string } }>(
      'GET',
      `/api/v1/namespaces/${namespace}/services/${name}`,
      { timeoutMs: PROBE_TIMEOUT_MS },
    );
    const ip = service.spec?.clusterIP;
    if (!ip || ip === 'None') return false;
    return await post(new URL(`https://${ip}:${port ?? 443}${path ?? '/'}`), ca, `${name}.${namespace}.svc`);
  } catch {
    return false;
  }
}
