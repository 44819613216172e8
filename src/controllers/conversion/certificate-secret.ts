/**
 * The Secret that holds the webhook's certificates, in the operator's namespace so that every replica
 * serves the same one: a kubernetes.io/tls Secret (tls.crt, tls.key) plus the CA bundle (ca.crt, the
 * current CA first) and the current CA's key (ca.key), which lets whichever replica renews sign.
 * Writes carry the resourceVersion read, so two replicas renewing at once cannot both win.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { isNotFound } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';
import type { StoredCertificates } from './rotation.ts';

export const SECRET_KEYS = {
  certificate: 'tls.crt',
  key: 'tls.key',
  caBundle: 'ca.crt',
  caKey: 'ca.key',
} as const;

/** What was read: the certificates (undefined when absent or incomplete) and the version to write over. */
export interface SecretState {
  readonly stored: StoredCertificates | undefined;
  /** The Secret's resourceVersion; undefined when there is no Secret. */
  readonly resourceVersion: string | undefined;
}

function decoded(secret: V1Secret, key: string): string | undefined {
  const value = secret.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

export function storedCertificatesOf(secret: V1Secret): StoredCertificates | undefined {
  const certificate = decoded(secret, SECRET_KEYS.certificate);
  const key = decoded(secret, SECRET_KEYS.key);
  const caBundle = decoded(secret, SECRET_KEYS.caBundle);
  const caKey = decoded(secret, SECRET_KEYS.caKey);
  if (!certificate || !key || !caBundle || !caKey) return undefined;
  return { certificate, key, caBundle, caKey };
}

export class CertificateSecret {
  readonly namespace: string;
  readonly name: string;
  private readonly transport: Transport;
  private readonly labels: Readonly<Record<string, string>>;

  constructor(options: {
    transport: Transport;
    namespace: string;
    name: string;
    labels: Readonly<Record<string, string>>;
  }) {
    this.transport = options.transport;
    this.namespace = options.namespace;
    this.name = options.name;
    this.labels = options.labels;
  }

  private get path(): string {
    return `/api/v1/namespaces/${this.namespace}/secrets/${this.name}`;
  }

  async read(): Promise<SecretState> {
    try {
      const secret = await this.transport.request<V1Secret>('GET', this.path, { timeoutMs: 10_000 });
      return { stored: storedCertificatesOf(secret), resourceVersion: secret.metadata?.resourceVersion };
    } catch (error) {
      if (isNotFound(error)) return { stored: undefined, resourceVersion: undefined };
      throw error;
    }
  }

  /**
   * Creates the Secret (no resourceVersion) or replaces the one read (its resourceVersion): 409 when
   * another replica wrote first. Returns the new resourceVersion.
   */
  async write(stored: StoredCertificates, resourceVersion: string | undefined): Promise<string | undefined> {
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { ...this.labels },
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      },
      type: 'kubernetes.io/tls',
      data: {
        [SECRET_KEYS.certificate]: Buffer.from(stored.certificate).toString('base64'),
        [SECRET_KEYS.key]: Buffer.from(stored.key).toString('base64'),
        [SECRET_KEYS.caBundle]: Buffer.from(stored.caBundle).toString('base64'),
        [SECRET_KEYS.caKey]: Buffer.from(stored.caKey).toString('base64'),
      },
    };
    const written =
      resourceVersion === undefined
        ? await this.transport.request<V1Secret>('POST', `/api/v1/namespaces/${this.namespace}/secrets`, {
            body,
            timeoutMs: 10_000,
          })
        : await this.transport.request<V1Secret>('PUT', this.path, { body, timeoutMs: 10_000 });
    return written.metadata?.resourceVersion;
  }
}
