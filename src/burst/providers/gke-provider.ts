/**
 * GKE cluster provider over `@google-cloud/container`'s `ClusterManagerClient`.
 *
 * - The client runs in its HTTP/JSON mode (`fallback: true`): REST calls made by google-auth-library
 *   through `fetch`, no gRPC channel. The same path runs in production and in the tests, which hand a
 *   recording `fetch` to the auth client's transporter (`options.fetch`).
 * - Credentials: a service-account key JSON given as text (read from a Secret by the caller), or,
 *   when absent, Application Default Credentials: on GKE that is workload identity (the metadata
 *   server), elsewhere `GOOGLE_APPLICATION_CREDENTIALS`. They stay in this process.
 * - The cluster is created with one node pool (machine type, node count) and workload identity on
 *   (`<project>.svc.id.goog`, nodes on the GKE metadata server), so MiniCluster pods there never see
 *   the node's service account credentials.
 * - The kubeconfig carries an OAuth access token of the same credentials (about an hour of life).
 * - The cluster is created with the resource labels of `ownerMarks` (the BurstTarget's uid); an
 *   existing cluster whose labels do not carry that uid is `NotOwned` (ownership.ts): never adopted,
 *   handed a kubeconfig or deleted.
 */
import { ClusterManagerClient } from '@google-cloud/container';
import { GoogleAuth, JWT } from 'google-auth-library';
import {
  ProviderError,
  buildKubeconfig,
  errorText,
  requireCount,
  requireNonEmpty,
  scrub,
  NOT_OWNED,
  type ClusterProvider,
  type ProvisionState,
} from './cluster-provider.ts';
import { ownerMarks, ownershipOf, requireOwnerUid } from './ownership.ts';

export interface GkeClusterSpec {
  readonly project: string;
  /** A region (`us-central1`, regional cluster) or a zone (`us-central1-a`, zonal cluster). */
  readonly location: string;
  readonly clusterName: string;
  readonly machineType: string;
  /** Nodes of the node pool (per zone of the location for a regional cluster). */
  readonly nodeCount: number;
  /** metadata.uid of the BurstTarget: the cluster is labelled with it, and must carry it to be used. */
  readonly ownerUid: string;
}

export interface GkeProviderOptions {
  /** Service-account key JSON text. Absent: Application Default Credentials / workload identity. */
  readonly serviceAccountJson?: string;
  /** The `fetch` every HTTP request of the SDK and its auth goes through (default: global fetch). */
  readonly fetch?: typeof fetch;
  /** Name of the node pool created with the cluster (default `default-pool`). */
  readonly nodePoolName?: string;
}

const SCOPES = ['https://www.googleapis.com/auth/cloud-platform'];

/** `google.container.v1.Cluster.Status`, by number, as the REST API may answer with either. */
const CLUSTER_STATUS = [
  'STATUS_UNSPECIFIED',
  'PROVISIONING',
  'RUNNING',
  'RECONCILING',
  'STOPPING',
  'ERROR',
  'DEGRADED',
];

/** gRPC status codes the provider handles by name. */
const GRPC_CODE: Readonly<Record<number, string>> = {
  3: 'INVALID_ARGUMENT',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  9: 'FAILED_PRECONDITION',
  16: 'UNAUTHENTICATED',
};

const CLUSTER_NAME = /^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$/;

interface ClusterView {
  readonly status?: unknown;
  readonly statusMessage?: string | null;
  readonly endpoint?: string | null;
  readonly masterAuth?: { readonly clusterCaCertificate?: string | null } | null;
  readonly resourceLabels?: Readonly<Record<string, string>> | null;
}

export class GkeProvider implements ClusterProvider<GkeClusterSpec> {
  readonly kind = 'gke' as const;
  readonly #auth: GoogleAuth;
  readonly #client: ClusterManagerClient;
  readonly #nodePoolName: string;
  /** Values that must never leave this object: key material and tokens handed out. */
  readonly #secrets: string[] = [];

  constructor(options: GkeProviderOptions = {}) {
    const transport = options.fetch ? { transporterOptions: { fetchImplementation: options.fetch } } : {};
    if (options.serviceAccountJson === undefined) {
      this.#auth = new GoogleAuth({ scopes: SCOPES, clientOptions: transport });
    } else {
      const key = parseServiceAccount(options.serviceAccountJson);
      this.#secrets.push(key.private_key, ...(key.private_key_id ? [key.private_key_id] : []));
      const jwt = new JWT({
        email: key.client_email,
        key: key.private_key,
        ...(key.private_key_id ? { keyId: key.private_key_id } : {}),
        scopes: SCOPES,
        ...transport,
      });
      this.#auth = new GoogleAuth({
        authClient: jwt,
        scopes: SCOPES,
        ...(key.project_id ? { projectId: key.project_id } : {}),
      });
    }
    this.#client = new ClusterManagerClient({ fallback: true, auth: this.#auth });
    this.#nodePoolName = options.nodePoolName ?? 'default-pool';
  }

  async ensureCluster(spec: GkeClusterSpec): Promise<ProvisionState> {
    validate(spec);
    const existing = await this.#get(spec);
    if (existing) return this.#state(existing, spec);
    try {
      const [operation] = await this.#client.createCluster({
        parent: parentOf(spec),
        cluster: {
          name: spec.clusterName,
          resourceLabels: ownerMarks(spec.ownerUid),
          workloadIdentityConfig: { workloadPool: `${spec.project}.svc.id.goog` },
          nodePools: [
            {
              name: this.#nodePoolName,
              initialNodeCount: spec.nodeCount,
              config: {
                machineType: spec.machineType,
                oauthScopes: SCOPES,
                workloadMetadataConfig: { mode: 'GKE_METADATA' },
              },
            },
          ],
        },
      });
      const op = operation.name ? ` (operation ${operation.name})` : '';
      return { phase: 'Provisioning', message: this.#scrub(`creating cluster ${spec.clusterName}${op}`) };
    } catch (err) {
      if (codeOf(err) !== 'ALREADY_EXISTS') throw this.#error(`create cluster ${spec.clusterName}`, err);
      const raced = await this.#get(spec);
      return raced
        ? this.#state(raced, spec)
        : { phase: 'Provisioning', message: `cluster ${spec.clusterName} exists` };
    }
  }

  async describe(spec: GkeClusterSpec): Promise<ProvisionState> {
    validate(spec);
    const cluster = await this.#get(spec);
    return cluster
      ? this.#state(cluster, spec)
      : { phase: 'Absent', message: `cluster ${spec.clusterName} does not exist` };
  }

  async deleteCluster(spec: GkeClusterSpec): Promise<void> {
    validate(spec);
    const cluster = await this.#get(spec);
    if (!cluster) return;
    const ownership = ownershipOf(cluster.resourceLabels, spec.ownerUid, 'label');
    if (!ownership.owned) {
      throw new ProviderError(
        'gke',
        this.#scrub(`refusing to delete cluster ${spec.clusterName}: ${ownership.why}`),
        NOT_OWNED,
      );
    }
    if (statusName(cluster.status) === 'STOPPING') return;
    try {
      await this.#client.deleteCluster({ name: nameOf(spec) });
    } catch (err) {
      if (codeOf(err) !== 'NOT_FOUND') throw this.#error(`delete cluster ${spec.clusterName}`, err);
    }
  }

  async kubeconfig(spec: GkeClusterSpec): Promise<string> {
    const state = await this.describe(spec);
    if (state.phase !== 'Ready' || !state.endpoint || !state.caData) {
      throw new ProviderError(
        'gke',
        `cluster ${spec.clusterName} is not ready (${state.phase}): ${state.message}`,
      );
    }
    let token: string | null | undefined;
    try {
      token = await this.#auth.getAccessToken();
    } catch (err) {
      throw this.#error('get access token', err);
    }
    if (!token) throw new ProviderError('gke', 'the credentials gave no access token');
    this.#secrets.push(token);
    return buildKubeconfig({
      name: `gke_${spec.project}_${spec.location}_${spec.clusterName}`,
      server: state.endpoint,
      caData: state.caData,
      token,
    });
  }

  /** Releases the client (its auth and transport). */
  async close(): Promise<void> {
    await this.#client.close();
  }

  async #get(spec: GkeClusterSpec): Promise<ClusterView | undefined> {
    try {
      const [cluster] = await this.#client.getCluster({ name: nameOf(spec) });
      return cluster;
    } catch (err) {
      if (codeOf(err) === 'NOT_FOUND') return undefined;
      throw this.#error(`get cluster ${spec.clusterName}`, err);
    }
  }

  #state(cluster: ClusterView, spec: GkeClusterSpec): ProvisionState {
    const ownership = ownershipOf(cluster.resourceLabels, spec.ownerUid, 'label');
    if (!ownership.owned) {
      return {
        phase: 'NotOwned',
        message: this.#scrub(`cluster ${spec.clusterName} exists, but ${ownership.why}`),
      };
    }
    const status = statusName(cluster.status);
    const detail = cluster.statusMessage ? `: ${cluster.statusMessage}` : '';
    const message = this.#scrub(`cluster ${status}${detail}`);
    const endpoint = cluster.endpoint ? `https://${cluster.endpoint}` : undefined;
    const caData = cluster.masterAuth?.clusterCaCertificate ?? undefined;
    const located = { ...(endpoint ? { endpoint } : {}), ...(caData ? { caData } : {}) };
    switch (status) {
      case 'RUNNING':
      case 'RECONCILING': // an update in progress; the API server keeps serving
        return endpoint && caData
          ? { phase: 'Ready', ...located, message }
          : { phase: 'Provisioning', ...located, message };
      case 'PROVISIONING':
        return { phase: 'Provisioning', ...located, message };
      case 'STOPPING':
        return { phase: 'Deleting', ...located, message };
      case 'ERROR':
      case 'DEGRADED':
        return { phase: 'Error', ...located, message };
      default:
        return { phase: 'Provisioning', ...located, message };
    }
  }

  #scrub(text: string): string {
    return scrub(text, this.#secrets);
  }

  #error(what: string, err: unknown): ProviderError {
    return new ProviderError('gke', this.#scrub(`${what}: ${errorText(err)}`), codeOf(err));
  }
}

interface ServiceAccountKey {
  readonly client_email: string;
  readonly private_key: string;
  readonly private_key_id?: string;
  readonly project_id?: string;
}

function parseServiceAccount(text: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input: never pass it on.
    throw new ProviderError('gke', 'serviceAccountJson is not valid JSON');
  }
  const key = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (
    key.type !== 'service_account' ||
    typeof key.client_email !== 'string' ||
    typeof key.private_key !== 'string'
  ) {
    throw new ProviderError(
      'gke',
      'serviceAccountJson must be a service account key (type service_account, client_email, private_key); ' +
        'other credential types: use workload identity or Application Default Credentials',
    );
  }
  const optional = (field: string): string | undefined =>
    typeof key[field] === 'string' ? key[field] : undefined;
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    private_key_id: optional('private_key_id'),
    project_id: optional('project_id'),
  };
}

function validate(spec: GkeClusterSpec): void {
  requireNonEmpty('gke', 'project', spec.project);
  requireNonEmpty('gke', 'location', spec.location);
  requireNonEmpty('gke', 'machineType', spec.machineType);
  requireCount('gke', 'nodeCount', spec.nodeCount);
  requireOwnerUid('gke', spec.ownerUid);
  if (typeof spec.clusterName !== 'string' || !CLUSTER_NAME.test(spec.clusterName)) {
    throw new ProviderError(
      'gke',
      'spec.clusterName must be 1-40 lowercase letters, digits or -, starting with a letter',
    );
  }
}

function parentOf(spec: GkeClusterSpec): string {
  return `projects/${spec.project}/locations/${spec.location}`;
}

function nameOf(spec: GkeClusterSpec): string {
  return `${parentOf(spec)}/clusters/${spec.clusterName}`;
}

function statusName(status: unknown): string {
  if (typeof status === 'number') return CLUSTER_STATUS[status] ?? 'STATUS_UNSPECIFIED';
  return typeof status === 'string' ? status : 'STATUS_UNSPECIFIED';
}

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = (err as { code: unknown }).code;
  if (typeof code === 'number') return GRPC_CODE[code] ?? String(code);
  return typeof code === 'string' ? code : undefined;
}
