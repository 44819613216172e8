/**
 * The CURVE certificate every broker of an instance shares: CZMQ's "zcert" secret-certificate text
 * (ZPL, 4-space indents, double-quoted values) holding a Curve25519 key pair in Z85.
 *
 * Facts the layout respects (docs/design.md §2, checked against flux-core 0.88): `metadata` must hold
 * `name` (rank 0 fails `overlay_authorize` without it); `keygen.hostname` must not be empty; values
 * must be double-quoted; the public key must be X25519(secret key, basepoint).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { z85Decode, z85Encode } from './z85.ts';

export const CURVE_KEY_BYTES = 32;

export interface CurveKeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

export interface CurveCertificateInput {
  /** Written as `metadata.name`: the MiniCluster name. */
  name: string;
  /** Written as `metadata.keygen.hostname`: the lead broker's hostname (`<name>-0`). */
  leadHostname: string;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
  /** Shown in the header, in UTC. Passed in so the text is a pure function of the input. */
  generatedAt: Date;
  /** Shown in the header, e.g. "flux-operator 0.1.0". */
  generator: string;
}

export interface ParsedCurveCertificate {
  name: string;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
  /** Every `metadata` property (`name`, `keygen.hostname`, and the other `keygen.*` of `flux keygen`). */
  metadata: Record<string, string>;
}

export class CurveCertificateError extends Error {
  override name = 'CurveCertificateError';
}

/** PKCS#8 DER header of an X25519 private key (RFC 8410); the 32 raw secret bytes follow it. */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

function base64UrlToBytes(text: string | undefined, what: string): Uint8Array {
  if (text === undefined) throw new Error(`node:crypto exported no ${what}`);
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

/** A fresh X25519 key pair from node:crypto. The one function here that uses randomness. */
export function generateCurveKeyPair(): CurveKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    publicKey: base64UrlToBytes(jwk.x, 'public key'),
    secretKey: base64UrlToBytes(jwk.d, 'secret key'),
  };
}

/** X25519(secret, basepoint): the public key belonging to a raw 32-byte secret key. */
export function curvePublicKeyFromSecret(secretKey: Uint8Array): Uint8Array {
  assertKeyLength('secret key', secretKey);
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  return base64UrlToBytes(createPublicKey(privateKey).export({ format: 'jwk' }).x, 'public key');
}

function assertKeyLength(what: string, key: Uint8Array): void {
  if (key.length !== CURVE_KEY_BYTES) {
    throw new CurveCertificateError(`${what} must be ${CURVE_KEY_BYTES} bytes, got ${key.length}`);
  }
}

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

/** Values are written inside double quotes on one line: no quotes, no control characters. */
function assertQuotable(what: string, value: string): void {
  if (value === '') throw new CurveCertificateError(`${what} must not be empty`);
  if (/["\p{Cc}]/u.test(value)) {
    throw new CurveCertificateError(
      `${what} ${JSON.stringify(value)} must not contain quotes or control characters`,
    );
  }
}

function formatUtc(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new CurveCertificateError('generatedAt is not a valid date');
  const two = (value: number): string => String(value).padStart(2, '0');
  return (
    `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`
  );
}

/** The certificate file text, byte for byte the layout of docs/design.md §2. */
export function curveCertificateText(input: CurveCertificateInput): string {
  assertQuotable('name', input.name);
  assertQuotable('leadHostname', input.leadHostname);
  if (/\p{Cc}/u.test(input.generator)) {
    throw new CurveCertificateError('generator must not contain control characters');
  }
  assertKeyLength('public key', input.publicKey);
  assertKeyLength('secret key', input.secretKey);
  return [
    `#   ****  Generated on ${formatUtc(input.generatedAt)} by ${input.generator}  ****`,
    '#   ZeroMQ CURVE **Secret** Certificate',
    '#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.',
    '',
    'metadata',
    `    name = "${input.name}"`,
    `    keygen.hostname = "${input.leadHostname}"`,
    'curve',
    `    public-key = "${z85Encode(input.publicKey)}"`,
    `    secret-key = "${z85Encode(input.secretKey)}"`,
    '',
  ].join('\n');
}

const SECTION_LINE = /^([A-Za-z0-9$\-_@.&+/]+)\s*$/;
const PROPERTY_LINE = /^ {4}([A-Za-z0-9$\-_@.&+/]+)\s*=\s*(.*?)\s*$/;
const QUOTED_VALUE = /^"([^"]*)"$/;

/**
 * Reads a zcert secret certificate: ours, or one written by `flux keygen` (whose header and extra
 * `keygen.*` metadata differ). Comments are skipped. Checks what Flux needs: `metadata.name`, two
 * 32-byte keys, and a public key that belongs to the secret key.
 */
export function parseCurveCertificate(text: string): ParsedCurveCertificate {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).replace(/\r$/, '');
    const where = `line ${index + 1}`;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s*\t/.test(line)) throw new CurveCertificateError(`${where}: indent with spaces, not tabs`);
    if (!line.startsWith(' ')) {
      const section = SECTION_LINE.exec(line);
      if (!section)
        throw new CurveCertificateError(`${where}: expected a section name, got ${JSON.stringify(line)}`);
      const name = section[1] as string;
      if (sections.has(name)) throw new CurveCertificateError(`${where}: section ${name} appears twice`);
      current = new Map();
      sections.set(name, current);
      continue;
    }
    const property = PROPERTY_LINE.exec(line);
    if (!property) {
      throw new CurveCertificateError(
        `${where}: expected '    key = "value"' (4-space indent), got ${JSON.stringify(line)}`,
      );
    }
    if (!current) throw new CurveCertificateError(`${where}: property outside a section`);
    const key = property[1] as string;
    const quoted = QUOTED_VALUE.exec(property[2] as string);
    if (!quoted) throw new CurveCertificateError(`${where}: the value of ${key} must be double-quoted`);
    if (current.has(key)) throw new CurveCertificateError(`${where}: ${key} appears twice`);
    current.set(key, quoted[1] as string);
  }

  const metadata = sections.get('metadata');
  const name = metadata?.get('name');
  if (name === undefined || name === '') {
    throw new CurveCertificateError('metadata has no name (Flux rank 0 fails overlay_authorize without it)');
  }
  if (metadata?.get('keygen.hostname') === '') {
    throw new CurveCertificateError('metadata keygen.hostname is empty (it breaks worker connections)');
  }
  const curve = sections.get('curve');
  if (!curve) throw new CurveCertificateError('no curve section');
  const decodeKey = (key: string): Uint8Array => {
    const value = curve.get(key);
    if (value === undefined) throw new CurveCertificateError(`curve has no ${key}`);
    let bytes: Uint8Array;
    try {
      bytes = z85Decode(value);
    } catch (error) {
      throw new CurveCertificateError(`curve ${key} is not Z85: ${(error as Error).message}`);
    }
    assertKeyLength(`curve ${key}`, bytes);
    return bytes;
  };
  const publicKey = decodeKey('public-key');
  const secretKey = decodeKey('secret-key');
  if (!sameBytes(publicKey, curvePublicKeyFromSecret(secretKey))) {
    throw new CurveCertificateError(
      'curve public-key does not belong to secret-key (public != X25519(secret))',
    );
  }
  return { name, publicKey, secretKey, metadata: Object.fromEntries(metadata ?? []) };
}
