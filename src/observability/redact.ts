/**
 * Keeps secret material (munge keys, CURVE secret keys, any Secret's data) out of log lines. Three
 * layers, used together by the logger:
 * - `scrubSecrets(text)` masks secrets inside free text, such as an API error message that echoes a
 *   response body;
 * - `redactSecretFields(value)` copies a value to be logged, masking fields whose name marks them as
 *   secret at any depth, turning errors into plain objects with scrubbed messages and stacks, and
 *   scrubbing every string;
 * - `REDACT_PATHS`, pino's own path redaction, a second net for the best-known places.
 */
import { stdSerializers } from 'pino';
import { SECRET_DATA_KEYS } from '../api/index.ts';

export const CENSOR = '[REDACTED]';

/** Field names whose values are never logged, wherever they appear. */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  // Secret (and ConfigMap) payloads
  'data',
  'stringData',
  'binaryData',
  // the Secrets' keys, and the operator's names for the material
  SECRET_DATA_KEYS.mungeKey,
  SECRET_DATA_KEYS.curveCert,
  'mungeKey',
  'curveCert',
  'curveCertificate',
  'secretKey',
  'secret-key',
  // the RESTful API's credentials (spec.fluxRestful, spec.users, the keys)
  'token',
  'password',
  'restfulSeed',
  // request credentials
  'authorization',
]);

/** pino `redact.paths`: the same fields at the top level, one level down, and inside API errors. */
export const REDACT_PATHS: readonly string[] = [
  'data',
  'stringData',
  'binaryData',
  'mungeKey',
  'curveCert',
  'curveCertificate',
  'secretKey',
  '["secret-key"]',
  'token',
  'password',
  'restfulSeed',
  '*.data',
  '*.stringData',
  '*.binaryData',
  '*.mungeKey',
  '*.curveCert',
  '*.curveCertificate',
  '*.secretKey',
  '*["secret-key"]',
  '*.token',
  '*.password',
  '*.restfulSeed',
  'body.data',
  'body.stringData',
  'err.body.data',
  'err.body.stringData',
  'err.body.binaryData',
  'err.response.body.data',
  'err.response.body.stringData',
];

/**
 * Runs of base64 this long are masked wherever they appear: longer than any digest or name the
 * operator logs (a SHA-512 in hex is 128), shorter than a base64 curve certificate or munge key.
 */
export const LONG_BLOB_LENGTH = 160;

// A zcert line `secret-key = "…"`, also inside JSON strings where the quotes are escaped.
const QUOTED_SECRET_KEY = /(secret-key\s*=\s*)(\\*")[^"\\\n]*(\\*")/g;
const BARE_SECRET_KEY = /(secret-key\s*=\s*)(?![\\"])[^\s"\\]+/g;
// The Secrets' data keys followed by their (base64) value: JSON `"munge.key":"…"`, YAML `munge.key: …`.
const SECRET_DATA_KEY_NAMES = [SECRET_DATA_KEYS.mungeKey, SECRET_DATA_KEYS.curveCert]
  .map((key) => key.replaceAll('.', '\\.'))
  .join('|');
const SECRET_FILE_VALUE = new RegExp(
  `((?:${SECRET_DATA_KEY_NAMES})\\\\*"?\\s*[:=]\\s*\\\\*"?)[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=._-])`,
  'g',
);
// A JSON `"data": {…}` / `"stringData": {…}` map (flat, as a Secret's is), possibly escaped.
const DATA_MAP = /((\\*)"(?:data|stringData|binaryData)\\*"\s*:\s*)\{[^{}]*\}/g;
const LONG_BLOB = new RegExp(`[A-Za-z0-9+/]{${LONG_BLOB_LENGTH},}={0,2}`, 'g');

/** Masks secret material in free text; text without any is returned unchanged. */
export function scrubSecrets(text: string): string {
  if (text.length < 16) return text;
  return text
    .replace(QUOTED_SECRET_KEY, `$1$2${CENSOR}$3`)
    .replace(BARE_SECRET_KEY, `$1${CENSOR}`)
    .replace(SECRET_FILE_VALUE, `$1${CENSOR}`)
    .replace(DATA_MAP, `$1$2"${CENSOR}$2"`)
    .replace(LONG_BLOB, CENSOR);
}

const MAX_DEPTH = 12;

function isPlainRecord(value: object): value is Record<string, unknown> {
  return !Array.isArray(value);
}

/**
 * An error as a plain object (pino's standard error serializer: type, message, stack, cause and
 * enumerable fields such as an ApiException's `code`, `body` and `headers`) with its secrets masked.
 * Values that are not errors go through `redactSecretFields`.
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return redactSecretFields(error);
  return redactSecretFields(stdSerializers.err(error));
}

/**
 * A copy of `value` safe to log: fields named in SECRET_FIELD_NAMES become CENSOR at any depth,
 * strings are scrubbed, errors are serialized (and scrubbed), byte arrays are replaced by their size,
 * cycles and very deep values are cut.
 */
export function redactSecretFields(value: unknown): unknown {
  return redactAt(value, 0, new WeakSet());
}

function redactAt(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(value);
  try {
    if (value instanceof Error) return redactAt(stdSerializers.err(value), depth, seen);
    if (Array.isArray(value)) return value.map((item) => redactAt(item, depth + 1, seen));
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const json: unknown = toJSON.call(value);
      if (json !== value) return redactAt(json, depth, seen);
    }
    if (value instanceof Map || value instanceof Set) return value;
    const out: Record<string, unknown> = {};
    if (!isPlainRecord(value)) return out;
    for (const key of Object.keys(value)) {
      const field = value[key];
      if (field === undefined) continue;
      out[key] = SECRET_FIELD_NAMES.has(key) ? CENSOR : redactAt(field, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
