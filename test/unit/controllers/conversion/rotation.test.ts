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
  validityFrom,
  type RotationPolicy,
  type StoredCertificates,
} from '../../../../src/controllers/conversion/rotation.ts';

const HOUR = 3600_000;
const T0 = new Date('2030-01-01T00:00:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);
/** A 100-hour CA and a 10-hour serving certificate, both renewed after two thirds. */
const POLICY: RotationPolicy = { caValidityMs: 100 * HOUR, servingValidityMs: 10 * HOUR, renewAt: 2 / 3 };
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
    assert.ok(plan.issueServing);
    assert.deepEqual(
      plan.keptBundle.map((pem) => pem.trim()),
      [ca.certificate.trim()],
    );
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
