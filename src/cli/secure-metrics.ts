/**
 * `--metrics-secure`: /metrics over HTTPS with a certificate made at start (scrapers of such
 * endpoints, as of kube-rbac-proxy's, authenticate with their token and skip the server's
 * verification), to the bearer tokens the API server allows (observability/metrics-auth.ts).
 */
import { hostname } from 'node:os';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '../controllers/conversion/certificates.ts';
import type { Transport } from '../kube/transport.ts';
import {
  CachedMetricsAuthorizer,
  apiServerReviewer,
  type MetricsAuthorizer,
} from '../observability/metrics-auth.ts';

/** A year: the certificate lives as long as the process, which a Deployment restarts far sooner. */
const VALIDITY_MS = 365 * 24 * 3600 * 1000;

export async function secureMetrics(
  transport: Transport,
): Promise<{ metricsTls: { certificate: string; key: string }; metricsAuth: MetricsAuthorizer }> {
  const validity = { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + VALIDITY_MS) };
  const ca = await createCertificateAuthority('flux-operator-metrics-ca', validity);
  const served = await issueServingCertificate(
    ca,
    { dnsNames: [...new Set([hostname(), 'localhost'])], ipAddresses: ['127.0.0.1'] },
    validity,
  );
  return {
    metricsTls: {
      certificate: `${served.certificate.trimEnd()}\n${ca.certificate.trimEnd()}\n`,
      key: served.key,
    },
    metricsAuth: new CachedMetricsAuthorizer(apiServerReviewer(transport)),
  };
}
