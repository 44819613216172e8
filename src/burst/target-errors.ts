/**
 * Why a burst target could not be reached, as a condition reason and a message naming the server,
 * where the credentials came from and the fix. Pure: classifies errors, never sends anything.
 * Messages never include credential material: API errors contribute only their status message.
 */
import { apiErrorCode, describeApiError } from '../kube/api-errors.ts';

export const TARGET_FAILURE_REASONS = [
  'SecretMissing',
  'KeyMissing',
  'InvalidKubeconfig',
  'Unauthorized',
  'Unreachable',
  'Forbidden',
  'UnsupportedProvider',
  /** A GKE/EKS cluster is being created (or deleted before being created again): checked again. */
  'Provisioning',
  /** The cloud reports the cluster failed, or refused a request for a reason the user must fix. */
  'ProvisionFailed',
  /**
   * The GKE/EKS cluster named exists but was not made for this BurstTarget (another one's, or not the
   * operator's): it is neither adopted nor deleted (src/burst/providers/ownership.ts).
   */
  'ClusterNotOwned',
  /** The cloud credentials in the Secret are malformed (never quoted in the message). */
  'InvalidCredentials',
  /** The operator could not be installed on the provisioned cluster. */
  'InstallFailed',
  /** The target does not serve MiniClusters: no operator there to render burst MiniClusters. */
  'OperatorMissing',
  /** The operator was just installed there; its MiniCluster resource is not served yet. */
  'OperatorInstalling',
] as const;

export type TargetFailureReason = (typeof TARGET_FAILURE_REASONS)[number];

export interface TargetFailure {
  readonly ok: false;
  readonly reason: TargetFailureReason;
  readonly message: string;
}

/** What the message says about the request that failed. */
export interface ProbeContext {
  /** The API server URL. */
  readonly server: string;
  /** Where the credentials came from: `Secret ns/name key kubeconfig`. */
  readonly source: string;
  /** The kubeconfig user entry's name. */
  readonly user: string;
  /** The request timeout, for the "no answer" message. */
  readonly timeoutMs: number;
}

export function failure(reason: TargetFailureReason, message: string): TargetFailure {
  return { ok: false, reason, message };
}

/** Network and TLS error codes of Node (undici's `cause.code`), and what they mean for people. */
const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed for now (DNS)',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the other side',
};

const TLS_CAUSES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
]);

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

function asErrorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;
}

/** The innermost error code of a network error (`fetch failed` wraps the socket's error). */
export function networkCode(error: unknown): string | undefined {
  let current = asErrorLike(error);
  let code: string | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string') code = current.code;
    current = asErrorLike(current.cause);
  }
  return code;
}

function isTimeout(error: unknown): boolean {
  const like = asErrorLike(error);
  const name = like?.name;
  return (
    name === 'TimeoutError' || name === 'AbortError' || asErrorLike(like?.cause)?.name === 'TimeoutError'
  );
}

function innermostMessage(error: unknown): string {
  let current = asErrorLike(error);
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.message === 'string' && current.message !== '') message = current.message;
    current = asErrorLike(current.cause);
  }
  return message;
}

/**
 * The condition for an error of a request to the target (`/version` or a permission check).
 * 401 -> Unauthorized, 403 -> Forbidden, anything else (HTTP errors, timeouts, network and TLS
 * failures) -> Unreachable.
 */
export function classifyProbeError(error: unknown, context: ProbeContext): TargetFailure {
  const { server, source, user } = context;
  const httpCode = apiErrorCode(error);
  if (httpCode !== undefined) {
    if (httpCode === 401) {
      return failure(
        'Unauthorized',
        `the API server ${server} rejected the credentials of user ${JSON.stringify(user)} in ${source} (HTTP 401 Unauthorized): the token or client certificate is wrong, expired or from another cluster; put valid credentials in the kubeconfig and update the Secret`,
      );
    }
    if (httpCode === 403) {
      return failure(
        'Forbidden',
        `the API server ${server} refused user ${JSON.stringify(user)} of ${source}: ${describeApiError(error)}; grant it access on the target cluster`,
      );
    }
    return failure(
      'Unreachable',
      `the API server ${server} answered with an error: ${describeApiError(error)}; check that ${server} is a Kubernetes API server and is healthy`,
    );
  }
  if (isTimeout(error)) {
    return failure(
      'Unreachable',
      `no answer from ${server} within ${Math.round(context.timeoutMs / 100) / 10} s; check the server URL in ${source} and that the operator's network can reach it`,
    );
  }
  const code = networkCode(error);
  if (code !== undefined && TLS_CAUSES.has(code)) {
    return failure(
      'Unreachable',
      `the TLS certificate of ${server} is not trusted (${code}); set certificate-authority-data in ${source} to the target cluster's CA`,
    );
  }
  const meaning = code === undefined ? undefined : NETWORK_CAUSES[code];
  const detail = meaning ?? innermostMessage(error);
  return failure(
    'Unreachable',
    `cannot reach ${server}: ${detail}; check the server URL in ${source} and that the operator's network can reach it`,
  );
}
