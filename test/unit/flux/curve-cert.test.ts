import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, diffieHellman } from 'node:crypto';
import {
  CurveCertificateError,
  curveCertificateText,
  curvePublicKeyFromSecret,
  generateCurveKeyPair,
  parseCurveCertificate,
} from '../../../src/flux/curve-cert.ts';
import { z85Decode, z85Encode } from '../../../src/flux/z85.ts';

// The server key pair of ZeroMQ's CURVE examples (zmq_curve(7)): an independent X25519 vector.
const ZMQ_EXAMPLE_PUBLIC = 'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7';
const ZMQ_EXAMPLE_SECRET = 'JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6';

const fixedInput = {
  name: 'flux-sample',
  leadHostname: 'flux-sample-0',
  publicKey: z85Decode(ZMQ_EXAMPLE_PUBLIC),
  secretKey: z85Decode(ZMQ_EXAMPLE_SECRET),
  generatedAt: new Date('2026-01-01T00:00:00Z'),
  generator: 'flux-operator 0.1.0',
};

/** X25519 public key recomputed independently: node:crypto key objects from JWK. */
function publicKeyViaJwk(publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'X25519',
      d: Buffer.from(secretKey).toString('base64url'),
      x: Buffer.from(publicKey).toString('base64url'),
    },
    format: 'jwk',
  });
  return new Uint8Array(
    Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x as string, 'base64url'),
  );
}

describe('curve certificate', () => {
  it('writes the zcert layout of design §2 exactly', () => {
    assert.equal(
      curveCertificateText(fixedInput),
      [
        '#   ****  Generated on 2026-01-01 00:00:00 by flux-operator 0.1.0  ****',
        '#   ZeroMQ CURVE **Secret** Certificate',
        '#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.',
        '',
        'metadata',
        '    name = "flux-sample"',
        '    keygen.hostname = "flux-sample-0"',
        'curve',
        `    public-key = "${ZMQ_EXAMPLE_PUBLIC}"`,
        `    secret-key = "${ZMQ_EXAMPLE_SECRET}"`,
        '',
      ].join('\n'),
    );
  });

  it('derives public keys as X25519(secret, basepoint), matching ZeroMQ', () => {
    assert.equal(z85Encode(curvePublicKeyFromSecret(z85Decode(ZMQ_EXAMPLE_SECRET))), ZMQ_EXAMPLE_PUBLIC);
  });

  it('generates key pairs whose certificate parses back with matching keys', () => {
    const pair = generateCurveKeyPair();
    assert.equal(pair.publicKey.length, 32);
    assert.equal(pair.secretKey.length, 32);
    const text = curveCertificateText({ ...fixedInput, ...pair });
    const publicZ85 = /public-key = "(.{40})"/.exec(text)?.[1];
    const secretZ85 = /secret-key = "(.{40})"/.exec(text)?.[1];
    assert.ok(publicZ85 && secretZ85);
    assert.deepEqual(z85Decode(publicZ85), pair.publicKey);
    assert.deepEqual(z85Decode(secretZ85), pair.secretKey);
    assert.deepEqual(publicKeyViaJwk(pair.publicKey, pair.secretKey), pair.publicKey);
    const parsed = parseCurveCertificate(text);
    assert.deepEqual(parsed.publicKey, pair.publicKey);
    assert.deepEqual(parsed.secretKey, pair.secretKey);
  });

  it('agrees with a Diffie-Hellman exchange: both sides of generated pairs reach one secret', () => {
    const alice = generateCurveKeyPair();
    const bob = generateCurveKeyPair();
    const keyObjects = (pair: { publicKey: Uint8Array; secretKey: Uint8Array }) => {
      const jwk = {
        kty: 'OKP',
        crv: 'X25519',
        x: Buffer.from(pair.publicKey).toString('base64url'),
        d: Buffer.from(pair.secretKey).toString('base64url'),
      };
      return {
        privateKey: createPrivateKey({ key: jwk, format: 'jwk' }),
        publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
      };
    };
    const a = keyObjects(alice);
    const b = keyObjects(bob);
    assert.deepEqual(
      diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey }),
      diffieHellman({ privateKey: b.privateKey, publicKey: a.publicKey }),
    );
    assert.notDeepEqual(alice.secretKey, bob.secretKey);
  });

  it('parses our certificate', () => {
    const parsed = parseCurveCertificate(curveCertificateText(fixedInput));
    assert.equal(parsed.name, 'flux-sample');
    assert.deepEqual(parsed.metadata, { name: 'flux-sample', 'keygen.hostname': 'flux-sample-0' });
    assert.deepEqual(parsed.publicKey, fixedInput.publicKey);
    assert.deepEqual(parsed.secretKey, fixedInput.secretKey);
  });

  it("parses a certificate in flux keygen's layout", () => {
    const fluxKeygen = [
      '#  ZeroMQ CURVE **Secret** Certificate',
      '#  DO NOT DISTRIBUTE',
      '',
      'metadata',
      '    name = "node0"',
      '    keygen.flux-core-version = "0.88.0"',
      '    keygen.hostname = "node0"',
      '    keygen.time = "2026-01-01T00:00:00"',
      '    keygen.userid = "1000"',
      '    keygen.zmq-version = "4.3.5"',
      'curve',
      `    public-key = "${ZMQ_EXAMPLE_PUBLIC}"`,
      `    secret-key = "${ZMQ_EXAMPLE_SECRET}"`,
      '',
    ].join('\r\n');
    const parsed = parseCurveCertificate(fluxKeygen);
    assert.equal(parsed.name, 'node0');
    assert.equal(parsed.metadata['keygen.flux-core-version'], '0.88.0');
    assert.equal(parsed.metadata['keygen.zmq-version'], '4.3.5');
    assert.equal(z85Encode(parsed.publicKey), ZMQ_EXAMPLE_PUBLIC);
  });

  it('rejects certificates Flux would fail on, saying why', () => {
    const valid = curveCertificateText(fixedInput);
    const otherPublic = z85Encode(generateCurveKeyPair().publicKey);
    const cases: [string, RegExp][] = [
      [valid.replace('    name = "flux-sample"\n', ''), /metadata has no name/],
      [valid.replace('"flux-sample-0"', '""'), /keygen.hostname is empty/],
      // A function: a Z85 key may hold `$`, which a replacement string reads as a pattern (`$$`, `$&`).
      [valid.replace(`"${ZMQ_EXAMPLE_PUBLIC}"`, () => `"${otherPublic}"`), /public != X25519\(secret\)/],
      [valid.replace(`"${ZMQ_EXAMPLE_SECRET}"`, '"HelloWorld"'), /secret-key must be 32 bytes, got 8/],
      [valid.replace(`"${ZMQ_EXAMPLE_SECRET}"`, '"Hello"World"'), /double-quoted/],
      [
        valid.replace(`"${ZMQ_EXAMPLE_PUBLIC}"`, ZMQ_EXAMPLE_PUBLIC),
        /value of public-key must be double-quoted/,
      ],
      [valid.replace(`    secret-key = "${ZMQ_EXAMPLE_SECRET}"\n`, ''), /curve has no secret-key/],
      [valid.replace(`"${ZMQ_EXAMPLE_SECRET}"`, `"${'~'.repeat(40)}"`), /secret-key is not Z85/],
      [valid.replace('curve\n', 'curve\ncurve\n'), /section curve appears twice/],
      [valid.replace('    name =', '\tname ='), /indent with spaces, not tabs/],
      [valid.replace('    name =', '  name ='), /4-space indent/],
      [valid.split('curve\n')[0] as string, /no curve section/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseCurveCertificate(text),
        (error: unknown) => {
          assert.ok(error instanceof CurveCertificateError, String(message));
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });

  it('refuses to write values Flux could not read back', () => {
    assert.throws(() => curveCertificateText({ ...fixedInput, name: '' }), /name must not be empty/);
    assert.throws(
      () => curveCertificateText({ ...fixedInput, leadHostname: 'a"b' }),
      /quotes or control characters/,
    );
    assert.throws(() => curveCertificateText({ ...fixedInput, generator: 'x\ny' }), /control characters/);
    assert.throws(
      () => curveCertificateText({ ...fixedInput, publicKey: new Uint8Array(31) }),
      /32 bytes, got 31/,
    );
    assert.throws(
      () => curveCertificateText({ ...fixedInput, generatedAt: new Date(Number.NaN) }),
      /not a valid date/,
    );
  });
});
