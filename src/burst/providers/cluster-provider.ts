/**
 * What every cloud cluster provider (GKE, EKS) implements, and the helpers they share: the
 * kubeconfig they hand back and the scrubbing that keeps credentials out of messages.
 *
 * Contract:
 * - `ensureCluster` is idempotent: it creates what is absent and otherwise reports. It never waits
 *   for the cloud: while the cloud works it returns `Provisioning`, and the caller polls again.
 * - `describe` only reads.
 * - `deleteCluster` is one idempotent step of a deletion: it starts what can be started now (EKS:
 *   the node group first, the cluster once the node group is gone) and returns; the caller calls it
 *   again until `describe` says `Absent`.
 * - `kubeconfig` returns a self-contained kubeconfig (server, CA, bearer token; no exec plugin). The
 *   token is short-lived (GKE: an OAuth access token, about an hour; EKS: a presigned STS URL,
 *   accepted for 15 minutes), so the caller asks again rather than storing it for long.
 * - Ownership (ownership.ts): a cluster is created marked with the uid of its BurstTarget (the spec's
 *   `ownerUid`), and an existing cluster without that mark is `NotOwned`: `ensureCluster` and
 *   `describe` report it and change nothing there, `kubeconfig` refuses it (not Ready), and
 *   `deleteCluster` throws a `ProviderError` with code `NotOwned` rather than delete it.
 * - Messages, errors and states never carry credentials: every message goes through `scrub`, and
 *   errors thrown are `ProviderError`s built from a scrubbed message without the SDK error as
 *   `cause` (SDK errors can carry the request, headers included).
 */
import { stringify } from 'yaml';

export type ProviderKind = 'gke' | 'eks';

/**
 * `NotOwned`: the cluster exists but was not made for this BurstTarget (another one's, or not the
 * operator's at all); the message says why. It wins over the cloud's own status.
 */
export type ProvisionPhase = 'Absent' | 'Provisioning' | 'Ready' | 'Deleting' | 'Error' | 'NotOwned';

/** `ProviderError.code` of a refusal to act on a cluster that is `NotOwned`. */
export const NOT_OWNED = 'NotOwned';

export interface ProvisionState {
  readonly phase: ProvisionPhase;
  /** https URL of the Kubernetes API server, once the cloud reports one. */
  readonly endpoint?: string;
  /** Base64 PEM of the cluster CA, as kubeconfig's `certificate-authority-data` wants it. */
  readonly caData?: string;
  readonly message: string;
}

export interface ClusterProvider<Spec = unknown> {
  readonly kind: ProviderKind;
  ensureCluster(spec: Spec): Promise<ProvisionState>;
  describe(spec: Spec): Promise<ProvisionState>;
  deleteCluster(spec: Spec): Promise<void>;
  /** Kubeconfig YAML text using a bearer token; throws `ProviderError` unless the cluster is Ready. */
  kubeconfig(spec: Spec): Promise<string>;
}

/** An error whose message has been scrubbed; it never holds the SDK error it came from. */
export class ProviderError extends Error {
  readonly provider: ProviderKind;
  /** The cloud's error code or name when there is one (e.g. `NOT_FOUND`, `AccessDeniedException`). */
  readonly code: string | undefined;

  constructor(provider: ProviderKind, message: string, code?: string) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
    this.provider = provider;
    this.code = code;
  }
}

const REDACTED = '[REDACTED]';

/** Shapes of credentials that must never appear, whoever they belong to, with their replacement. */
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  [/\bya29\.[\w.-]+/g, REDACTED], // Google OAuth access tokens
  [/\bk8s-aws-v1\.[\w-]+/g, REDACTED], // EKS bearer tokens
  [/\b(Bearer\s+)[\w.~+/=-]+/gi, `$1${REDACTED}`],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, REDACTED], // AWS access key ids
  [/(X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"']+/gi, `$1${REDACTED}`],
  [
    /("?(?:private_key|private_key_id|secretAccessKey|sessionToken|access_token|refresh_token|client_secret)"?\s*[:=]\s*)"[^"]*"/gi,
    `$1"${REDACTED}"`,
  ],
];

/**
 * Replaces every known secret value (at least 4 characters long) and anything shaped like a
 * credential by `[REDACTED]`.
 */
export function scrub(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** The message of anything thrown, as text (never its cause, config or request). */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

export interface KubeconfigInput {
  /** Name used for the cluster, user and context entries. */
  readonly name: string;
  /** https URL of the API server. */
  readonly server: string;
  /** Base64 PEM of the cluster CA. */
  readonly caData: string;
  readonly token: string;
}

/** A kubeconfig with one cluster, one token user and one context, selected. */
export function buildKubeconfig(input: KubeconfigInput): string {
  const server = input.server.startsWith('https://') ? input.server : `https://${input.server}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: input.name, cluster: { server, 'certificate-authority-data': input.caData } }],
    users: [{ name: input.name, user: { token: input.token } }],
    contexts: [{ name: input.name, context: { cluster: input.name, user: input.name } }],
    'current-context': input.name,
  });
}

export function requireNonEmpty(provider: ProviderKind, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ProviderError(provider, `spec.${field} must be a non-empty string`);
  }
  return value;
}

export function requireCount(provider: ProviderKind, field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ProviderError(provider, `spec.${field} must be an integer >= 1`);
  }
  return value;
}
