/**
 * Who may read /metrics when it is served to the pod network (`--metrics-secure`): what
 * kube-rbac-proxy did beside the Go operator, and what controller-runtime's metrics filter does since
 * it replaced it. The bearer token of the request is authenticated by the API server (a TokenReview)
 * and its user authorized for `get` on the non-resource URL `/metrics` (a SubjectAccessReview), the
 * right the ClusterRole `flux-operator-metrics-reader` grants (bind it to Prometheus's
 * ServiceAccount). Decisions are kept a minute per token (by its hash), and the reviews one peer's
 * requests can cause at once are bounded, so a stranger's stream of tokens costs the API server little.
 */
import { createHash } from 'node:crypto';
import type { Transport } from '../kube/transport.ts';

export type MetricsDecision = 'allowed' | 'unauthenticated' | 'forbidden' | 'busy';

export interface MetricsAuthorizer {
  decide(authorization: string | undefined): Promise<MetricsDecision>;
}

/** A user the API server vouched for. */
export interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The two questions put to the API server. */
export interface AccessReviewer {
  authenticate(token: string): Promise<ReviewedUser | undefined>;
  mayGet(user: ReviewedUser, path: string): Promise<boolean>;
}

export const METRICS_PATH = '/metrics';

interface TokenReviewStatus {
  status?: { authenticated?: boolean; user?: ReviewedUser; error?: string };
}

interface SubjectAccessReviewStatus {
  status?: { allowed?: boolean };
}

/** The API server's TokenReview and SubjectAccessReview, through the operator's transport. */
export function apiServerReviewer(transport: Transport): AccessReviewer {
  return {
    async authenticate(token) {
      const review = await transport.request<TokenReviewStatus>(
        'POST',
        '/apis/authentication.k8s.io/v1/tokenreviews',
        { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } },
      );
      const user = review.status?.user;
      return review.status?.authenticated === true && user?.username ? user : undefined;
    },
    async mayGet(user, path) {
      const review = await transport.request<SubjectAccessReviewStatus>(
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: user.username,
              ...(user.uid ? { uid: user.uid } : {}),
              ...(user.groups ? { groups: [...user.groups] } : {}),
              ...(user.extra ? { extra: user.extra } : {}),
              nonResourceAttributes: { path, verb: 'get' },
            },
          },
        },
      );
      return review.status?.allowed === true;
    },
  };
}

export interface CacheOptions {
  /** How long a decision is kept. */
  readonly ttlMs: number;
  /** Decisions kept at most (the oldest go first). */
  readonly maxEntries: number;
  /** Reviews under way at once; beyond, a request is answered `busy` (429). */
  readonly maxReviews: number;
}

export const METRICS_AUTH_CACHE: CacheOptions = { ttlMs: 60_000, maxEntries: 1024, maxReviews: 4 };

/** Decides from the Authorization header, asking the reviewer once per token and minute. */
export class CachedMetricsAuthorizer implements MetricsAuthorizer {
  private readonly reviewer: AccessReviewer;
  private readonly options: CacheOptions;
  private readonly decisions = new Map<string, { decision: MetricsDecision; until: number }>();
  private reviews = 0;

  constructor(reviewer: AccessReviewer, options: CacheOptions = METRICS_AUTH_CACHE) {
    this.reviewer = reviewer;
    this.options = options;
  }

  async decide(authorization: string | undefined): Promise<MetricsDecision> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const token = match?.[1];
    if (token === undefined) return 'unauthenticated';
    const key = createHash('sha256').update(token).digest('hex');
    const now = Date.now();
    const kept = this.decisions.get(key);
    if (kept !== undefined && kept.until > now) return kept.decision;
    if (this.reviews >= this.options.maxReviews) return 'busy';
    this.reviews += 1;
    let decision: MetricsDecision;
    try {
      const user = await this.reviewer.authenticate(token);
      decision =
        user === undefined
          ? 'unauthenticated'
          : (await this.reviewer.mayGet(user, METRICS_PATH))
            ? 'allowed'
            : 'forbidden';
    } finally {
      this.reviews -= 1;
    }
    this.decisions.delete(key);
    this.decisions.set(key, { decision, until: now + this.options.ttlMs });
    while (this.decisions.size > this.options.maxEntries) {
      const oldest = this.decisions.keys().next().value;
      if (oldest === undefined) break;
      this.decisions.delete(oldest);
    }
    return decision;
  }
}
