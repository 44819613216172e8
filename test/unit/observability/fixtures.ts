/** Shared by the observability tests: real key material, Secrets carrying it, an in-memory log sink. */
import assert from 'node:assert/strict';
import { SECRET_DATA_KEYS } from '../../../src/api/index.ts';
import { generateMiniClusterKeys } from '../../../src/render/keys.ts';
import type { MiniClusterKeys } from '../../../src/render/keys.ts';

export interface SecretMaterial {
  readonly keys: MiniClusterKeys;
  /** The Z85 CURVE secret key inside the certificate text. */
  readonly curveSecretKey: string;
  readonly mungeKeyBase64: string;
  readonly curveCertBase64: string;
  /** Secrets shaped as the operator renders them (src/render/secrets.ts). */
  readonly curveSecret: Record<string, unknown>;
  readonly mungeSecret: Record<string, unknown>;
  /** Strings that must never appear in a log line. */
  readonly forbidden: readonly string[];
}

function secret(name: string, key: string, base64: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'flux', labels: { 'app.kubernetes.io/name': 'demo' } },
    type: 'Opaque',
    immutable: true,
    data: { [key]: base64 },
  };
}

export function secretMaterial(): SecretMaterial {
  const keys = generateMiniClusterKeys('demo', new Date('2025-01-02T03:04:05Z'));
  const match = /secret-key = "([^"]+)"/.exec(keys.curveCertificate);
  if (!match?.[1]) throw new Error('certificate without a secret-key line');
  const curveSecretKey = match[1];
  const mungeKeyBase64 = Buffer.from(keys.mungeKey).toString('base64');
  const curveCertBase64 = Buffer.from(keys.curveCertificate, 'utf8').toString('base64');
  return {
    keys,
    curveSecretKey,
    mungeKeyBase64,
    curveCertBase64,
    curveSecret: secret('demo-curve-cert', SECRET_DATA_KEYS.curveCert, curveCertBase64),
    mungeSecret: secret('demo-munge-key', SECRET_DATA_KEYS.mungeKey, mungeKeyBase64),
    forbidden: [
      curveSecretKey,
      mungeKeyBase64,
      mungeKeyBase64.slice(0, 40),
      mungeKeyBase64.slice(-40),
      curveCertBase64.slice(0, 40),
    ],
  };
}

/** Asserts that none of the key material appears in `output`; returns it for chaining. */
export function leaked(material: SecretMaterial, output: string): string[] {
  return material.forbidden.filter((value) => output.includes(value));
}

export interface MemoryDestination {
  readonly lines: string[];
  write(line: string): void;
  text(): string;
  records(): Record<string, unknown>[];
}

export function memoryDestination(): MemoryDestination {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
    },
    text() {
      return lines.join('');
    },
    records() {
      return lines
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** items[index], failing the test when it is missing. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined)
    throw new assert.AssertionError({ message: `no item at ${index} of ${items.length}` });
  return item;
}

/** The value at a path of keys inside `value`, or undefined. */
export function dig(value: unknown, ...keys: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
