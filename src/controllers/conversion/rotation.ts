/**
 * When the webhook's certificates are made again: a pure decision from what the Secret holds, the
 * names the serving certificate must carry and the time. A certificate is renewed once `renewAt` of
 * its lifetime has passed (two thirds by default: a 90-day serving certificate 30 days before it
 * expires), long before any client would refuse it.
 *
 * A renewed CA is trusted before anything it signs is served: it joins the bundle (the CRD's
 * caBundle) beside the old CA, which stays until it expires, and the serving certificate of the old
 * CA keeps being served for `trustDelayMs` more. The API server takes up a new caBundle a moment after
 * the CRD changes (longer when it is loaded): a certificate of the new CA served at once was refused
 * in that moment ("certificate signed by unknown authority").
 */
import {
  certificateFacts,
  issuedBy,
  keyMatches,
  splitPem,
  type CertificateFacts,
  type CertificateHosts,
} from './certificates.ts';

/** What the Secret holds: the CA bundle (the current CA first), the current CA's key, the serving pair. */
export interface StoredCertificates {
  readonly caBundle: string;
  readonly caKey: string;
  readonly certificate: string;
  readonly key: string;
}

export interface RotationPolicy {
  readonly caValidityMs: number;
  readonly servingValidityMs: number;
  /** The fraction of a certificate's lifetime after which it is renewed (0 < renewAt < 1). */
  readonly renewAt: number;
  /** How long a new CA is in the bundle before the certificate served is one it signed. */
  readonly trustDelayMs: number;
}

const DAY_MS = 24 * 3600 * 1000;

export const DEFAULT_ROTATION_POLICY: RotationPolicy = {
  caValidityMs: 5 * 365 * DAY_MS,
  servingValidityMs: 90 * DAY_MS,
  renewAt: 2 / 3,
  // Against a rotation every 3.3 years and a serving certificate renewed 30 days before it expires,
  // ten minutes is nothing; against an API server slow to take up a new caBundle, plenty.
  trustDelayMs: 10 * 60 * 1000,
};

export interface RotationPlan {
  /** keep the CA; create a new one alone (none usable); rotate: a new one, the old kept in the bundle. */
  readonly ca: 'keep' | 'create' | 'rotate';
  /** Issue a new serving certificate (never in the pass that rotates the CA: it is not trusted yet). */
  readonly issueServing: boolean;
  /** Why, for the log line (no key material). */
  readonly reasons: readonly string[];
  /** The CAs of the bundle still worth trusting: the current one first, the expired ones dropped. */
  readonly keptBundle: readonly string[];
}

/** The time after which a certificate with this validity is renewed. */
export function renewalTime(facts: Pick<CertificateFacts, 'notBefore' | 'notAfter'>, renewAt: number): Date {
  const start = facts.notBefore.getTime();
  return new Date(start + (facts.notAfter.getTime() - start) * renewAt);
}

function factsOrUndefined(pem: string): CertificateFacts | undefined {
  try {
    return certificateFacts(pem);
  } catch {
    return undefined;
  }
}

function missingHosts(facts: CertificateHosts, wanted: CertificateHosts): string[] {
  return [
    ...wanted.dnsNames.filter((name) => !facts.dnsNames.includes(name)),
    ...wanted.ipAddresses.filter((ip) => !facts.ipAddresses.includes(ip)),
  ];
}

function caDecision(
  stored: StoredCertificates | undefined,
  now: Date,
  policy: RotationPolicy,
): { ca: RotationPlan['ca']; reason?: string; bundle: string[] } {
  if (!stored) return { ca: 'create', reason: 'no certificate yet', bundle: [] };
  const bundle = splitPem(stored.caBundle);
  const current = bundle[0];
  const facts = current === undefined ? undefined : factsOrUndefined(current);
  if (current === undefined || !facts) return { ca: 'create', reason: 'the CA is unreadable', bundle: [] };
  if (!keyMatches(current, stored.caKey))
    return { ca: 'create', reason: "the CA's key does not match it", bundle: [] };
  if (now >= facts.notAfter) return { ca: 'create', reason: 'the CA expired', bundle: [] };
  const unexpired = bundle.filter((pem) => {
    const other = factsOrUndefined(pem);
    return other !== undefined && now < other.notAfter;
  });
  if (now >= renewalTime(facts, policy.renewAt)) {
    return {
      ca: 'rotate',
      reason: `the CA is due for renewal (expires ${facts.notAfter.toISOString()})`,
      bundle: unexpired,
    };
  }
  return { ca: 'keep', bundle: unexpired };
}

/**
 * When a CA has been in the bundle `trustDelayMs`: it was made `caValidityMs` before it expires
 * (validityFrom), and it joined the bundle then.
 */
export function trustedFrom(caPem: string, policy: RotationPolicy): Date {
  const facts = certificateFacts(caPem);
  const madeAt = Math.max(facts.notBefore.getTime(), facts.notAfter.getTime() - policy.caValidityMs);
  return new Date(madeAt + policy.trustDelayMs);
}

function servingDecision(
  stored: StoredCertificates,
  ca: string,
  olderCas: readonly string[],
  wanted: CertificateHosts,
  now: Date,
  policy: RotationPolicy,
): string | undefined {
  const facts = factsOrUndefined(stored.certificate);
  if (!facts) return 'the serving certificate is unreadable';
  if (!keyMatches(stored.certificate, stored.key)) return "the serving certificate's key does not match it";
  const missing = missingHosts(facts, wanted);
  if (missing.length > 0) return `the serving certificate does not name ${missing.join(', ')}`;
  if (now >= facts.notAfter) return 'the serving certificate expired';
  if (!issuedBy(stored.certificate, ca)) {
    const signedByTrusted = olderCas.some((older) => issuedBy(stored.certificate, older));
    if (signedByTrusted && now < trustedFrom(ca, policy)) return undefined;
    return 'the serving certificate is not signed by the current CA';
  }
  if (now >= renewalTime(facts, policy.renewAt)) {
    return `the serving certificate is due for renewal (expires ${facts.notAfter.toISOString()})`;
  }
  return undefined;
}

/** What to make again, and why. */
export function planRotation(
  stored: StoredCertificates | undefined,
  wanted: CertificateHosts,
  now: Date,
  policy: RotationPolicy = DEFAULT_ROTATION_POLICY,
): RotationPlan {
  const { ca, reason: caReason, bundle } = caDecision(stored, now, policy);
  if (ca === 'rotate' && stored) {
    // The old pair serves on while the new CA becomes trusted, unless it cannot.
    const [oldCa = '', ...olderCas] = bundle;
    const servingReason = servingDecision(stored, oldCa, olderCas, wanted, now, policy);
    return {
      ca,
      issueServing: servingReason !== undefined,
      reasons: [caReason ?? '', servingReason ?? 'the new CA signs the serving certificate once trusted'],
      keptBundle: bundle,
    };
  }
  if (ca !== 'keep' || !stored) {
    return {
      ca,
      issueServing: true,
      reasons: [caReason ?? 'no certificate yet', 'a new CA signs a new serving certificate'],
      keptBundle: bundle,
    };
  }
  const [current = '', ...olderCas] = bundle;
  const servingReason = servingDecision(stored, current, olderCas, wanted, now, policy);
  return {
    ca,
    issueServing: servingReason !== undefined,
    reasons: servingReason === undefined ? [] : [servingReason],
    keptBundle: bundle,
  };
}

/** The validity of a certificate made now: a few minutes back, for clocks a little behind. */
export function validityFrom(now: Date, lifetimeMs: number): { notBefore: Date; notAfter: Date } {
  const skew = Math.min(5 * 60 * 1000, lifetimeMs / 10);
  return { notBefore: new Date(now.getTime() - skew), notAfter: new Date(now.getTime() + lifetimeMs) };
}
