/**
 * EKS cluster provider over `@aws-sdk/client-eks`.
 *
 * - A cluster is an EKS control plane plus one managed node group. `ensureCluster` creates the
 *   control plane, then (once it is ACTIVE) the node group; `deleteCluster` deletes the node group
 *   first and the control plane once the node group is gone (EKS refuses it before).
 * - The control plane is created with access entries on and the creator made cluster admin
 *   (`bootstrapClusterCreatorAdminPermissions`), so the identity these credentials resolve to can
 *   use the kubeconfig without an aws-auth ConfigMap edit.
 * - Credentials: access keys given by the caller (read from a Secret), or, when absent, the SDK's
 *   default provider chain (environment, IRSA web identity, EKS pod identity, instance profile).
 *   They stay in this process.
 * - The kubeconfig carries the bearer token `aws eks get-token` makes: `k8s-aws-v1.` followed by
 *   the unpadded base64url of a presigned STS `GetCallerIdentity` URL whose signature covers the
 *   `x-k8s-aws-id: <cluster name>` header (presigned for 60 s; EKS accepts it for 15 minutes).
 * - The control plane and the node group are created with the tags of `ownerMarks` (the
 *   BurstTarget's uid); an existing control plane whose tags do not carry that uid is `NotOwned`
 *   (ownership.ts): no node group is added to it, and it is never handed a kubeconfig or deleted.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DeleteClusterCommand,
  DeleteNodegroupCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  type Cluster,
  type EKSClientConfig,
  type Nodegroup,
} from '@aws-sdk/client-eks';
import { SignatureV4 } from '@smithy/signature-v4';
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

export interface EksClusterSpec {
  readonly region: string;
  readonly clusterName: string;
  /** IAM role the EKS control plane assumes (trust: eks.amazonaws.com). */
  readonly roleArn: string;
  /** Subnets of the control plane and of the node group (at least two availability zones). */
  readonly subnetIds: readonly string[];
  /** IAM role of the nodes (trust: ec2.amazonaws.com). */
  readonly nodeRoleArn: string;
  readonly instanceTypes: readonly string[];
  readonly nodeCount: number;
  /** Default `flux-nodes`. */
  readonly nodegroupName?: string;
  /** Kubernetes version (`1.33`); default: EKS's default. */
  readonly kubernetesVersion?: string;
  /** metadata.uid of the BurstTarget: the cluster is tagged with it, and must carry it to be used. */
  readonly ownerUid: string;
}

export interface EksCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface EksProviderOptions {
  /** Access keys; absent: the default provider chain (IRSA, pod identity, environment, ...). */
  readonly credentials?: EksCredentials;
  /** The SDK's HTTP handler (default: its node handler). Tests pass a recording one. */
  readonly requestHandler?: EKSClientConfig['requestHandler'];
  /** Clock used to sign the kubeconfig token (default: now). */
  readonly now?: () => Date;
  /** Idempotency token of a create call (default: a random UUID). */
  readonly clientRequestToken?: () => string;
}

type PresignRequest = Parameters<SignatureV4['presign']>[0];

const DEFAULT_NODEGROUP = 'flux-nodes';
const TOKEN_PREFIX = 'k8s-aws-v1.';
const TOKEN_PRESIGN_SECONDS = 60;
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;

export class EksProvider implements ClusterProvider<EksClusterSpec> {
  readonly kind = 'eks' as const;
  readonly #options: EksProviderOptions;
  readonly #clients = new Map<string, EKSClient>();
  readonly #secrets: string[] = [];

  constructor(options: EksProviderOptions = {}) {
    this.#options = options;
    if (options.credentials) {
      const { accessKeyId, secretAccessKey, sessionToken } = options.credentials;
      this.#secrets.push(secretAccessKey, accessKeyId, ...(sessionToken ? [sessionToken] : []));
    }
  }

  async ensureCluster(spec: EksClusterSpec): Promise<ProvisionState> {
    validate(spec);
    const client = this.#client(spec.region);
    const cluster = await this.#describeCluster(client, spec);
    if (!cluster) {
      await this.#send(`create cluster ${spec.clusterName}`, () =>
        client.send(
          new CreateClusterCommand({
            name: spec.clusterName,
            roleArn: spec.roleArn,
            ...(spec.kubernetesVersion ? { version: spec.kubernetesVersion } : {}),
            resourcesVpcConfig: { subnetIds: [...spec.subnetIds], endpointPublicAccess: true },
            accessConfig: {
              authenticationMode: 'API_AND_CONFIG_MAP',
              bootstrapClusterCreatorAdminPermissions: true,
            },
            tags: ownerMarks(spec.ownerUid),
            clientRequestToken: this.#token(),
          }),
        ),
      );
      return { phase: 'Provisioning', message: `creating cluster ${spec.clusterName}` };
    }
    const notOwned = this.#notOwned(cluster, spec);
    if (notOwned) return notOwned;
    if (cluster.status !== 'ACTIVE' && cluster.status !== 'UPDATING') return this.#clusterState(cluster);
    const nodegroup = await this.#describeNodegroup(client, spec);
    if (nodegroup) return this.#nodegroupState(cluster, nodegroup);
    if (cluster.status !== 'ACTIVE') {
      return {
        ...located(cluster),
        phase: 'Provisioning',
        message: `cluster ${cluster.status}; node group waits`,
      };
    }
    await this.#send(`create node group ${nodegroupOf(spec)}`, () =>
      client.send(
        new CreateNodegroupCommand({
          clusterName: spec.clusterName,
          nodegroupName: nodegroupOf(spec),
          nodeRole: spec.nodeRoleArn,
          subnets: [...spec.subnetIds],
          instanceTypes: [...spec.instanceTypes],
          scalingConfig: { minSize: spec.nodeCount, maxSize: spec.nodeCount, desiredSize: spec.nodeCount },
          tags: ownerMarks(spec.ownerUid),
          clientRequestToken: this.#token(),
        }),
      ),
    );
    return {
      ...located(cluster),
      phase: 'Provisioning',
      message: `creating node group ${nodegroupOf(spec)}`,
    };
  }

  async describe(spec: EksClusterSpec): Promise<ProvisionState> {
    validate(spec);
    const client = this.#client(spec.region);
    const cluster = await this.#describeCluster(client, spec);
    if (!cluster) return { phase: 'Absent', message: `cluster ${spec.clusterName} does not exist` };
    const notOwned = this.#notOwned(cluster, spec);
    if (notOwned) return notOwned;
    if (cluster.status !== 'ACTIVE' && cluster.status !== 'UPDATING') return this.#clusterState(cluster);
    const nodegroup = await this.#describeNodegroup(client, spec);
    if (!nodegroup) {
      return {
        ...located(cluster),
        phase: 'Provisioning',
        message: `cluster ${cluster.status}; no node group yet`,
      };
    }
    return this.#nodegroupState(cluster, nodegroup);
  }

  async deleteCluster(spec: EksClusterSpec): Promise<void> {
    validate(spec);
    const client = this.#client(spec.region);
    const cluster = await this.#describeCluster(client, spec);
    if (!cluster) return;
    const ownership = ownershipOf(cluster.tags, spec.ownerUid, 'tag');
    if (!ownership.owned) {
      throw new ProviderError(
        'eks',
        this.#scrub(`refusing to delete cluster ${spec.clusterName}: ${ownership.why}`),
        NOT_OWNED,
      );
    }
    if (cluster.status === 'DELETING') return;
    const nodegroup = await this.#describeNodegroup(client, spec);
    if (nodegroup) {
      if (nodegroup.status === 'DELETING') return;
      await this.#send(
        `delete node group ${nodegroupOf(spec)}`,
        () =>
          client.send(
            new DeleteNodegroupCommand({ clusterName: spec.clusterName, nodegroupName: nodegroupOf(spec) }),
          ),
        'ResourceNotFoundException',
      );
      return;
    }
    await this.#send(
      `delete cluster ${spec.clusterName}`,
      () => client.send(new DeleteClusterCommand({ name: spec.clusterName })),
      'ResourceNotFoundException',
    );
  }

  async kubeconfig(spec: EksClusterSpec): Promise<string> {
    const state = await this.describe(spec);
    if (state.phase !== 'Ready' || !state.endpoint || !state.caData) {
      throw new ProviderError(
        'eks',
        `cluster ${spec.clusterName} is not ready (${state.phase}): ${state.message}`,
      );
    }
    const token = await this.token(spec);
    const name = `eks_${spec.region}_${spec.clusterName}`;
    return buildKubeconfig({ name, server: state.endpoint, caData: state.caData, token });
  }

  /** The EKS bearer token for `spec`'s cluster, as `aws eks get-token` makes it. */
  async token(spec: Pick<EksClusterSpec, 'region' | 'clusterName'>): Promise<string> {
    const client = this.#client(spec.region);
    const hostname = stsHost(spec.region);
    try {
      const signer = new SignatureV4({
        credentials: client.config.credentials,
        region: spec.region,
        service: 'sts',
        sha256: client.config.sha256,
      });
      const request: PresignRequest = {
        method: 'GET',
        protocol: 'https:',
        hostname,
        path: '/',
        query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
        headers: { host: hostname, 'x-k8s-aws-id': spec.clusterName },
      };
      const signed = await signer.presign(request, {
        expiresIn: TOKEN_PRESIGN_SECONDS,
        signingDate: this.#options.now?.() ?? new Date(),
      });
      const query = Object.entries(signed.query ?? {})
        .flatMap(([k, v]) =>
          Array.isArray(v) ? v.map((x) => [k, x] as const) : v == null ? [] : [[k, v] as const],
        )
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&');
      const token = TOKEN_PREFIX + Buffer.from(`https://${hostname}/?${query}`).toString('base64url');
      this.#secrets.push(token);
      return token;
    } catch (err) {
      throw this.#error('sign token', err);
    }
  }

  /** Releases the clients. */
  close(): Promise<void> {
    for (const client of this.#clients.values()) client.destroy();
    this.#clients.clear();
    return Promise.resolve();
  }

  #client(region: string): EKSClient {
    let client = this.#clients.get(region);
    if (!client) {
      const { credentials, requestHandler } = this.#options;
      client = new EKSClient({
        region,
        ...(credentials ? { credentials: { ...credentials } } : {}),
        ...(requestHandler ? { requestHandler } : {}),
      });
      this.#clients.set(region, client);
    }
    return client;
  }

  #token(): string {
    return this.#options.clientRequestToken?.() ?? randomUUID();
  }

  async #describeCluster(client: EKSClient, spec: EksClusterSpec): Promise<Cluster | undefined> {
    const out = await this.#send(
      `describe cluster ${spec.clusterName}`,
      () => client.send(new DescribeClusterCommand({ name: spec.clusterName })),
      'ResourceNotFoundException',
    );
    return out?.cluster;
  }

  async #describeNodegroup(client: EKSClient, spec: EksClusterSpec): Promise<Nodegroup | undefined> {
    const out = await this.#send(
      `describe node group ${nodegroupOf(spec)}`,
      () =>
        client.send(
          new DescribeNodegroupCommand({ clusterName: spec.clusterName, nodegroupName: nodegroupOf(spec) }),
        ),
      'ResourceNotFoundException',
    );
    return out?.nodegroup;
  }

  /** Runs one SDK call; `absent` names the error that means "not there" (then: undefined). */
  async #send<T>(what: string, call: () => Promise<T>, absent?: string): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      if (absent !== undefined && nameOf(err) === absent) return undefined;
      throw this.#error(what, err);
    }
  }

  /** The NotOwned state of a cluster not tagged with this spec's owner; undefined when it is. */
  #notOwned(cluster: Cluster, spec: EksClusterSpec): ProvisionState | undefined {
    const ownership = ownershipOf(cluster.tags, spec.ownerUid, 'tag');
    if (ownership.owned) return undefined;
    return {
      phase: 'NotOwned',
      message: this.#scrub(`cluster ${spec.clusterName} exists, but ${ownership.why}`),
    };
  }

  #clusterState(cluster: Cluster): ProvisionState {
    const base = {
      ...located(cluster),
      message: this.#scrub(`cluster ${cluster.status ?? 'UNKNOWN'}${healthOf(cluster)}`),
    };
    switch (cluster.status) {
      case 'CREATING':
      case 'PENDING':
        return { ...base, phase: 'Provisioning' };
      case 'DELETING':
        return { ...base, phase: 'Deleting' };
      case 'FAILED':
        return { ...base, phase: 'Error' };
      default:
        return { ...base, phase: 'Provisioning' };
    }
  }

  #nodegroupState(cluster: Cluster, nodegroup: Nodegroup): ProvisionState {
    const issues = (nodegroup.health?.issues ?? []).map((i) => `${i.code ?? ''} ${i.message ?? ''}`.trim());
    const detail = issues.length > 0 ? `: ${issues.join('; ')}` : '';
    const base = {
      ...located(cluster),
      message: this.#scrub(`cluster ${cluster.status}, node group ${nodegroup.status ?? 'UNKNOWN'}${detail}`),
    };
    switch (nodegroup.status) {
      case 'ACTIVE':
      case 'UPDATING':
        return base.endpoint && base.caData
          ? { ...base, phase: 'Ready' }
          : { ...base, phase: 'Provisioning' };
      case 'CREATING':
        return { ...base, phase: 'Provisioning' };
      case 'DELETING':
        return { ...base, phase: 'Deleting' };
      case 'CREATE_FAILED':
      case 'DELETE_FAILED':
      case 'DEGRADED':
        return { ...base, phase: 'Error' };
      default:
        return { ...base, phase: 'Provisioning' };
    }
  }

  #scrub(text: string): string {
    return scrub(text, this.#secrets);
  }

  #error(what: string, err: unknown): ProviderError {
    return new ProviderError('eks', this.#scrub(`${what}: ${errorText(err)}`), nameOf(err));
  }
}

function validate(spec: EksClusterSpec): void {
  requireNonEmpty('eks', 'region', spec.region);
  requireNonEmpty('eks', 'roleArn', spec.roleArn);
  requireNonEmpty('eks', 'nodeRoleArn', spec.nodeRoleArn);
  requireCount('eks', 'nodeCount', spec.nodeCount);
  requireOwnerUid('eks', spec.ownerUid);
  if (typeof spec.clusterName !== 'string' || !CLUSTER_NAME.test(spec.clusterName)) {
    throw new ProviderError(
      'eks',
      'spec.clusterName must be 1-100 letters, digits, - or _, starting alphanumeric',
    );
  }
  if (!Array.isArray(spec.subnetIds) || spec.subnetIds.length === 0) {
    throw new ProviderError('eks', 'spec.subnetIds must list at least one subnet');
  }
  if (!Array.isArray(spec.instanceTypes) || spec.instanceTypes.length === 0) {
    throw new ProviderError('eks', 'spec.instanceTypes must list at least one instance type');
  }
}

function nodegroupOf(spec: EksClusterSpec): string {
  return spec.nodegroupName ?? DEFAULT_NODEGROUP;
}

function located(cluster: Cluster): { endpoint?: string; caData?: string } {
  const caData = cluster.certificateAuthority?.data;
  return { ...(cluster.endpoint ? { endpoint: cluster.endpoint } : {}), ...(caData ? { caData } : {}) };
}

function healthOf(cluster: Cluster): string {
  const issues = (cluster.health?.issues ?? []).map((i) => `${i.code ?? ''} ${i.message ?? ''}`.trim());
  return issues.length > 0 ? `: ${issues.join('; ')}` : '';
}

/** The regional STS endpoint (`aws eks get-token` signs against the regional endpoint too). */
export function stsHost(region: string): string {
  return region.startsWith('cn-') ? `sts.${region}.amazonaws.com.cn` : `sts.${region}.amazonaws.com`;
}

function nameOf(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}
