import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import {
  certificateFacts,
  createCertificateAuthority,
  issueServingCertificate,
  issuedBy,
  keyMatches,
  splitPem,
  type CertificateAndKey,
} from '../../../../src/controllers/conversion/certificates.ts';
import {
  planRotation,
  renewalTime,
  trustedFrom,
  validityFrom,
  type RotationPolicy,
  type StoredCertificates,
} from '../../../../src/controllers/conversion/rotation.ts';

const HOUR = 3600_000;
const T0 = new Date('2030-01-01T00:00:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);
/** A 100-hour CA and a 10-hour serving certificate, both renewed after two thirds; a new CA signs after an hour. */
const POLICY: RotationPolicy = {
  caValidityMs: 100 * HOUR,
  servingValidityMs: 10 * HOUR,
  renewAt: 2 / 3,
  trustDelayMs: HOUR,
};
const HOSTS = { dnsNames: ['flux-operator-webhook.ns.svc'], ipAddresses: ['127.0.0.1'] };

let ca: CertificateAndKey;
let serving: CertificateAndKey;
let stored: StoredCertificates;

before(async () => {
  ca = await createCertificateAuthority('test-ca', { notBefore: T0, notAfter: at(100) });
  serving = await issueServingCertificate(ca, HOSTS, { notBefore: T0, notAfter: at(10) });
  stored = { caBundle: ca.certificate, caKey: ca.key, certificate: serving.certificate, key: serving.key };
});

describe('webhook certificates', () => {
  it('makes a CA that signs a serving certificate naming the hosts, for the validity asked', () => {
    const facts = certificateFacts(serving.certificate);
    assert.deepEqual(facts.dnsNames, HOSTS.dnsNames);
    assert.deepEqual(facts.ipAddresses, HOSTS.ipAddresses);
    assert.deepEqual([facts.notBefore, facts.notAfter], [T0, at(10)]);
    assert.ok(issuedBy(serving.certificate, ca.certificate));
    assert.ok(keyMatches(serving.certificate, serving.key));
    assert.ok(!keyMatches(serving.certificate, ca.key));
    assert.ok(new X509Certificate(ca.certificate).ca, 'the CA is a CA');
    assert.ok(!new X509Certificate(serving.certificate).ca, 'the serving certificate is not');
    assert.equal(
      new X509Certificate(serving.certificate).checkHost('flux-operator-webhook.ns.svc'),
      'flux-operator-webhook.ns.svc',
    );
    assert.equal(new X509Certificate(serving.certificate).checkIP('127.0.0.1'), '127.0.0.1');
  });

  it('is not signed by another CA', async () => {
    const other = await createCertificateAuthority('other', { notBefore: T0, notAfter: at(100) });
    assert.ok(!issuedBy(serving.certificate, other.certificate));
  });

  it('refuses a serving certificate that names nothing', async () => {
    await assert.rejects(
      issueServingCertificate(ca, { dnsNames: [], ipAddresses: [] }, { notBefore: T0, notAfter: at(1) }),
      /at least one DNS name or IP address/,
    );
  });

  it('splits a bundle into its certificates, in order', () => {
    assert.deepEqual(
      splitPem(`${ca.certificate}\n${serving.certificate}`).map((pem) => pem.trim()),
      [ca.certificate.trim(), serving.certificate.trim()],
    );
  });
});

describe('planRotation', () => {
  it('makes a CA and a serving certificate when there are none', () => {
    const plan = planRotation(undefined, HOSTS, at(0), POLICY);
    assert.equal(plan.ca, 'create');
    assert.ok(plan.issueServing);
  });

  it('keeps everything within two thirds of the serving certificate lifetime', () => {
    const plan = planRotation(stored, HOSTS, at(6.6), POLICY);
    assert.deepEqual(
      { ca: plan.ca, issue: plan.issueServing, reasons: plan.reasons },
      { ca: 'keep', issue: false, reasons: [] },
    );
    assert.deepEqual(
      renewalTime(certificateFacts(serving.certificate), 2 / 3).getTime(),
      at(10 * (2 / 3)).getTime(),
    );
  });

  it('renews the serving certificate after two thirds of its lifetime, long before it expires', () => {
    const plan = planRotation(stored, HOSTS, at(6.7), POLICY);
    assert.equal(plan.ca, 'keep');
    assert.ok(plan.issueServing);
    assert.match(plan.reasons[0] ?? '', /serving certificate is due for renewal/);
  });

  it('renews a serving certificate that lacks a wanted name', () => {
    const plan = planRotation(stored, { dnsNames: ['other.ns.svc'], ipAddresses: [] }, at(1), POLICY);
    assert.ok(plan.issueServing);
    assert.match(plan.reasons[0] ?? '', /does not name other\.ns\.svc/);
  });

  it('renews a serving certificate signed by a CA that is not the current one', async () => {
    const other = await createCertificateAuthority('other', { notBefore: T0, notAfter: at(100) });
    const plan = planRotation(
      { ...stored, caBundle: other.certificate, caKey: other.key },
      HOSTS,
      at(1),
      POLICY,
    );
    assert.equal(plan.ca, 'keep');
    assert.ok(plan.issueServing);
    assert.match(plan.reasons[0] ?? '', /not signed by the current CA/);
  });

  it('rotates the CA after two thirds of its lifetime, keeping the old one in the bundle', () => {
    const plan = planRotation(stored, HOSTS, at(67), POLICY);
    assert.equal(plan.ca, 'rotate');
    // Long expired, the old serving certificate is renewed (by the old CA: the new one is not trusted yet).
    assert.ok(plan.issueServing);
    assert.match(plan.reasons.join('; '), /the serving certificate expired/);
    assert.deepEqual(
      plan.keptBundle.map((pem) => pem.trim()),
      [ca.certificate.trim()],
    );
  });

  it('keeps serving what the old CA signed while the new CA becomes trusted, then moves to the new CA', async () => {
    // A serving certificate of the old CA, fresh when the CA is due (at 67 hours).
    const fresh = await issueServingCertificate(ca, HOSTS, { notBefore: at(66), notAfter: at(76) });
    const beforeRotation = { ...stored, certificate: fresh.certificate, key: fresh.key };
    const rotation = planRotation(beforeRotation, HOSTS, at(67), POLICY);
    assert.equal(rotation.ca, 'rotate');
    assert.equal(rotation.issueServing, false, 'nothing of the new CA is served in the pass that makes it');

    // What the rotation stores: the new CA first in the bundle, its key, the old pair.
    const made = validityFrom(at(67), POLICY.caValidityMs);
    const next = await createCertificateAuthority('next-ca', made);
    assert.equal(trustedFrom(next.certificate, POLICY).getTime(), at(68).getTime());
    const rotated = {
      caBundle: `${next.certificate}${ca.certificate}`,
      caKey: next.key,
      certificate: fresh.certificate,
      key: fresh.key,
    };
    // Within the trust delay the old pair stays, even once it is due for renewal.
    const waiting = planRotation(rotated, HOSTS, at(67.9), POLICY);
    assert.deepEqual([waiting.ca, waiting.issueServing], ['keep', false]);
    const dueMeanwhile = await issueServingCertificate(ca, HOSTS, { notBefore: at(60), notAfter: at(70) });
    const dueButWaiting = planRotation(
      { ...rotated, certificate: dueMeanwhile.certificate, key: dueMeanwhile.key },
      HOSTS,
      at(67.9),
      POLICY,
    );
    assert.equal(dueButWaiting.issueServing, false);
    // Then the new CA signs.
    const moved = planRotation(rotated, HOSTS, at(68), POLICY);
    assert.deepEqual([moved.ca, moved.issueServing], ['keep', true]);
    assert.match(moved.reasons[0] ?? '', /not signed by the current CA/);
  });

  it('does not wait for trust when the served certificate expired, or its CA is not in the bundle', async () => {
    const next = await createCertificateAuthority('next-ca', validityFrom(at(67), POLICY.caValidityMs));
    const expiring = await issueServingCertificate(ca, HOSTS, { notBefore: at(57), notAfter: at(67.5) });
    const rotated = {
      caBundle: `${next.certificate}${ca.certificate}`,
      caKey: next.key,
      certificate: expiring.certificate,
      key: expiring.key,
    };
    assert.match(planRotation(rotated, HOSTS, at(67.6), POLICY).reasons[0] ?? '', /expired/);
    const untrusted = planRotation({ ...rotated, caBundle: next.certificate }, HOSTS, at(67.1), POLICY);
    assert.ok(untrusted.issueServing);
    assert.match(untrusted.reasons[0] ?? '', /not signed by the current CA/);
  });

  it('starts over when the CA expired, its key does not match, or the Secret holds garbage', () => {
    assert.equal(planRotation(stored, HOSTS, at(100), POLICY).ca, 'create');
    assert.equal(planRotation({ ...stored, caKey: serving.key }, HOSTS, at(1), POLICY).ca, 'create');
    assert.equal(
      planRotation({ ...stored, caBundle: 'not a certificate' }, HOSTS, at(1), POLICY).ca,
      'create',
    );
  });

  it('drops expired CAs from the bundle it keeps', async () => {
    const old = await createCertificateAuthority('old', { notBefore: at(-50), notAfter: at(5) });
    const plan = planRotation(
      { ...stored, caBundle: `${ca.certificate}${old.certificate}` },
      HOSTS,
      at(6),
      POLICY,
    );
    assert.deepEqual(
      plan.keptBundle.map((pem) => pem.trim()),
      [ca.certificate.trim()],
    );
  });

  it('dates certificates a little back, for clocks behind', () => {
    const validity = validityFrom(T0, 10 * HOUR);
    assert.equal(validity.notAfter.getTime(), at(10).getTime());
    assert.equal(T0.getTime() - validity.notBefore.getTime(), 5 * 60_000);
    assert.equal(T0.getTime() - validityFrom(T0, 10_000).notBefore.getTime(), 1_000);
  });
});
