// The serving certificate of a cluster's Kueue (its webhook and metrics servers on loopback) and the CA
// the API server trusts it by, made with the code that makes the operator's conversion webhook's.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '../../../../src/controllers/conversion/certificates.ts';

/** As long as the cluster's ServiceAccount token (kueue.ts): a local cluster lives as long as it is kept. */
export const KUEUE_CREDENTIALS_DAYS = 365;

/** Writes ca.crt, tls.crt and tls.key into `certDir`; returns the CA's PEM. */
export async function writeKueueCertificates(certDir: string, now = new Date()): Promise<string> {
  const validity = {
    // An hour back: a clock a little behind on the other side still accepts it.
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + KUEUE_CREDENTIALS_DAYS * 86_400_000),
  };
  const ca = await createCertificateAuthority('flux-operator local Kueue CA', validity);
  const serving = await issueServingCertificate(
    ca,
    { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] },
    validity,
  );
  mkdirSync(certDir, { recursive: true });
  writeFileSync(path.join(certDir, 'ca.crt'), ca.certificate);
  writeFileSync(path.join(certDir, 'tls.crt'), serving.certificate);
  writeFileSync(path.join(certDir, 'tls.key'), serving.key, { mode: 0o600 });
  return ca.certificate;
}
