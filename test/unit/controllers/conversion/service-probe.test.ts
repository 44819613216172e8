// conversionReviewReach: the one probe of a conversion webhook, used by the operator (before it points
// the CRD at itself, and to say why its webhook does not answer) and by the test harness: a
// ConversionReview answered with its uid, over TLS verified against the CA given, for the URL's host or
// the server name given; else the reason. (Its Service form, through the API, is tested on a real API
// server: test/integration/conversion-webhook.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAndKey,
} from '../../../../src/controllers/conversion/certificates.ts';
import { ConversionWebhookServer } from '../../../../src/controllers/conversion/server.ts';
import {
  conversionReviewAnswers,
  conversionReviewReach,
} from '../../../../src/controllers/conversion/service-probe.ts';

const validity = () => ({
  notBefore: new Date(Date.now() - 60_000),
  notAfter: new Date(Date.now() + 3600_000),
});

describe('conversionReviewAnswers', () => {
  let ca: CertificateAndKey;
  let otherCa: CertificateAndKey;
  const server = new ConversionWebhookServer({ convert: (obj) => obj as object });

  before(async () => {
    ca = await createCertificateAuthority('ca-1', validity());
    otherCa = await createCertificateAuthority('ca-2', validity());
    const pair = await issueServingCertificate(
      ca,
      { dnsNames: ['webhook.ns.svc'], ipAddresses: ['127.0.0.1'] },
      validity(),
    );
    await server.listen({ host: '127.0.0.1', port: 0 }, pair);
  });
  after(() => server.close());

  const url = (path: string) => new URL(`https://127.0.0.1:${server.port ?? 0}${path}`);

  it('is true when the webhook answers with the uid, for the URL host or the server name', async () => {
    assert.equal(await conversionReviewAnswers(url('/convert'), ca.certificate, { timeoutMs: 5_000 }), true);
    const named = { servername: 'webhook.ns.svc', timeoutMs: 5_000 };
    assert.equal(await conversionReviewAnswers(url('/convert'), ca.certificate, named), true);
  });

  it('is false for another CA, a name the certificate lacks, another path, or nothing listening', async () => {
    assert.equal(
      await conversionReviewAnswers(url('/convert'), otherCa.certificate, { timeoutMs: 5_000 }),
      false,
    );
    const unnamed = { servername: 'other.ns.svc', timeoutMs: 5_000 };
    assert.equal(await conversionReviewAnswers(url('/convert'), ca.certificate, unnamed), false);
    assert.equal(await conversionReviewAnswers(url('/mutate'), ca.certificate, { timeoutMs: 5_000 }), false);
    const closed = new URL('https://127.0.0.1:1/convert');
    assert.equal(await conversionReviewAnswers(closed, ca.certificate, { timeoutMs: 5_000 }), false);
  });

  it('says why it does not answer', async () => {
    const reason = async (target: URL, ca: string, servername?: string) => {
      const reach = await conversionReviewReach(target, ca, {
        timeoutMs: 5_000,
        ...(servername ? { servername } : {}),
      });
      return reach.ok ? 'answers' : reach.reason;
    };
    assert.equal(await reason(url('/convert'), ca.certificate), 'answers');
    assert.match(await reason(url('/convert'), otherCa.certificate), /certificate/);
    assert.match(await reason(url('/convert'), ca.certificate, 'other.ns.svc'), /other\.ns\.svc/);
    assert.match(await reason(url('/mutate'), ca.certificate), /^it answered HTTP 404: not found/);
    assert.match(await reason(new URL('https://127.0.0.1:1/convert'), ca.certificate), /ECONNREFUSED/);
  });
});
