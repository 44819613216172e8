/**
 * The webhook's X.509 certificates: a CA of its own and a serving certificate it signs, both ECDSA
 * P-256. Node's crypto makes keys and reads certificates but cannot write one, so @peculiar/x509
 * (over Node's WebCrypto) builds them; what they hold is read back with node:crypto's X509Certificate.
 */
import 'reflect-metadata/lite'; // @peculiar/x509's dependency injection needs Reflect.getMetadata.
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A certificate and its private key, both PEM (the key PKCS #8). */
export interface CertificateAndKey {
  readonly certificate: string;
  readonly key: string;
}

/** What a serving certificate names: DNS names and IP addresses. */
export interface CertificateHosts {
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

export interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** What the rotation needs to know of a certificate. */
export interface CertificateFacts extends Validity, CertificateHosts {
  /** The SHA-256 fingerprint, to tell certificates apart in logs. */
  readonly fingerprint: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
type CryptoKey = webcrypto.CryptoKey;
const subtle = webcrypto.subtle;
x509.cryptoProvider.set(webcrypto as never);

/** A positive 128-bit serial number (RFC 5280: unique per CA, at most 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
}

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
    .export({ format: 'pem', type: 'pkcs8' })
    .toString();
}

async function importSigningKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
  return subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
}

/** A self-signed CA that signs only serving certificates (path length 0). */
export async function createCertificateAuthority(
  commonName: string,
  validity: Validity,
): Promise<CertificateAndKey> {
  const keys = await keyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${commonName}`,
    notBefore: validity.notBefore,
    notAfter: validity.notAfter,
    keys: keys as never,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
    ],
  });
  return { certificate: certificate.toString('pem'), key: await pkcs8Pem(keys.privateKey) };
}

/** A TLS server certificate for `hosts`, signed by `ca`. */
export async function issueServingCertificate(
  ca: CertificateAndKey,
  hosts: CertificateHosts,
  validity: Validity,
): Promise<CertificateAndKey> {
  if (hosts.dnsNames.length + hosts.ipAddresses.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  const issuer = new x509.X509Certificate(ca.certificate);
  const keys = await keyPair();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${hosts.dnsNames[0] ?? hosts.ipAddresses[0] ?? ''}`,
    issuer: issuer.subject,
    notBefore: validity.notBefore,
    notAfter: validity.notAfter,
    publicKey: keys.publicKey as never,
    signingKey: (await importSigningKey(ca.key)) as never,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...hosts.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...hosts.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(issuer),
    ],
  });
  return { certificate: certificate.toString('pem'), key: await pkcs8Pem(keys.privateKey) };
}

/** The PEM blocks of a bundle, in order. */
export function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
}

/** Validity, names and fingerprint of a PEM certificate; throws when it is not one. */
export function certificateFacts(pem: string): CertificateFacts {
  const certificate = new X509Certificate(pem);
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const entry of (certificate.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) dnsNames.push(entry.slice(4));
    else if (entry.startsWith('IP Address:')) ipAddresses.push(entry.slice(11));
  }
  return {
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
    dnsNames,
    ipAddresses,
    fingerprint: certificate.fingerprint256,
  };
}

/** True when `certificate` is signed by `ca` (its issuer name and signature both match). */
export function issuedBy(certificate: string, ca: string): boolean {
  const leaf = new X509Certificate(certificate);
  const authority = new X509Certificate(ca);
  return leaf.checkIssued(authority) && leaf.verify(authority.publicKey);
}

/** True when the private key belongs to the certificate. */
export function keyMatches(certificate: string, key: string): boolean {
  try {
    return new X509Certificate(certificate).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}
