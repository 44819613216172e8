// Whether a conversion webhook answers where a CRD's clientConfig says, checked as the API server checks
// it: TLS verified against the caBundle, for the URL's host or the Service's DNS name, and a
// ConversionReview answered with its uid. A Service is reached at its ClusterIP, from this machine, the
// way the local API server reaches it (the real node's kube-proxy routes it).
import type { ConversionClientConfig } from '../../src/api/index.ts';
import { conversionReviewAnswers } from '../../src/controllers/conversion/service-probe.ts';
import type { Transport } from '../../src/kube/transport.ts';

const PROBE_TIMEOUT_MS = 2_000;

/** True when the webhook the clientConfig names answers a ConversionReview over verified TLS. */
export async function conversionWebhookAnswers(
  transport: Transport,
  config: ConversionClientConfig,
): Promise<boolean> {
  if (!config.caBundle) return false;
  const ca = Buffer.from(config.caBundle, 'base64').toString('utf8');
  if ('url' in config)
    return conversionReviewAnswers(new URL(config.url), ca, { timeoutMs: PROBE_TIMEOUT_MS });
  const { namespace, name, port, path } = config.service;
  try {
    const service = await transport.request<{ spec?: { clusterIP?: string } }>(
      'GET',
      `/api/v1/namespaces/${namespace}/services/${name}`,
      { timeoutMs: PROBE_TIMEOUT_MS },
    );
    const ip = service.spec?.clusterIP;
    if (!ip || ip === 'None') return false;
    return await conversionReviewAnswers(new URL(`https://${ip}:${port ?? 443}${path ?? '/'}`), ca, {
      servername: `${name}.${namespace}.svc`,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
  } catch {
    return false;
  }
}
