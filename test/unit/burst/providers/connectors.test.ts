/**
 * The GKE and EKS connectors: credentials from the target's Secret, create-then-poll through the
 * real providers, the kubeconfig loaded and the operator installed once the cluster is ready. The
 * providers run their real SDKs through the same seams as their own tests (GKE: the auth client's
 * `fetch`; EKS: the `requestHandler`), and nothing reaches a network (diagnostics-channel watch).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import {
  BURST_TARGET_API_VERSION,
  validateBurstTarget,
  type DefaultedBurstTarget,
} from '../../../../src/api/index.ts';
import type { InstallOperator } from '../../../../src/burst/install-operator.ts';
import {
  providerConnectors,
  type ProviderConnectorsOptions,
} from '../../../../src/burst/providers/connectors.ts';
import { OWNER_UID_KEY } from '../../../../src/burst/providers/ownership.ts';
import { connectTarget, type ProviderKubeConfig } from '../../../../src/burst/target-connection.ts';
import { burstTargetStatus } from '../../../../src/burst/target-status.ts';
import { watchNetwork, type NetworkWatch } from './no-network.ts';
import { fakeAws, fakeGoogle, type AwsReply, type GoogleReply } from './recorders.ts';

// ---- credentials (every value below must never show in a message) -----------------------------

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PRIVATE_KEY_ID = 'key-id-0123456789abcdef';
const SA_JSON = JSON.stringify({
  type: 'service_account',
  project_id: 'proj-1',
  private_key_id: PRIVATE_KEY_ID,
  private_key: PRIVATE_KEY_PEM,
  client_email: 'burst@proj-1.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});
const ACCESS_TOKEN = 'ya29.a0AfB_connector-token';
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const AWS_SESSION = 'FwoGZXIvYXdzEXAMPLESESSIONTOKENvalue';
/** Fragments that identify each credential. */
const SECRET_VALUES = [
  PRIVATE_KEY_PEM.split('\n')[1] ?? 'unreachable',
  PRIVATE_KEY_ID,
  ACCESS_TOKEN,
  AWS_KEY_ID,
  AWS_SECRET,
  AWS_SESSION,
];

/** Every failure message any test saw; checked for credentials after each test. */
const messages: string[] = [];

function record(result: ProviderKubeConfig | { ok: boolean; message?: string }): void {
  if (!result.ok && 'message' in result && result.message !== undefined) messages.push(result.message);
}

// ---- the local Secrets ---------------------------------------------------------------------------

function secret(name: string, data: Record<string, string>): V1Secret {
  return {
    metadata: { name, namespace: 'team-a' },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

function secrets(...list: V1Secret[]): ProviderConnectorsOptions['readSecret'] {
  return (namespace, name) =>
    Promise.resolve(list.find((s) => s.metadata?.name === name && namespace === 'team-a'));
}

// ---- targets ---------------------------------------------------------------------------------------

/** The uid of the BurstTarget `cloud`, and of another BurstTarget, as the API server writes uids. */
const UID = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const OTHER_UID = '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';
/** The labels (GKE) and tags (EKS) of a cluster the operator made for `cloud`. */
const OWN_MARKS = { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: UID };

function target(spec: Record<string, unknown>): DefaultedBurstTarget {
  const result = validateBurstTarget({
    apiVersion: BURST_TARGET_API_VERSION,
    kind: 'BurstTarget',
    metadata: { name: 'cloud', namespace: 'team-a', uid: UID, generation: 1 },
    spec,
  });
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

const GKE = {
  project: 'proj-1',
  location: 'us-central1',
  clusterName: 'burst-a1',
  machineType: 'e2-standard-8',
};
const gkeTarget = (extra: Record<string, unknown> = {}) =>
  target({ provider: 'gke', gke: { ...GKE, credentialsSecret: 'gcp', ...extra } });

const EKS = {
  region: 'us-east-1',
  clusterName: 'burst-a1',
  roleArn: 'arn:aws:iam::111122223333:role/flux-burst-cluster',
  nodeRoleArn: 'arn:aws:iam::111122223333:role/flux-burst-nodes',
  subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
  instanceType: 'c6i.2xlarge',
  nodeCount: 4,
  kubernetesVersion: '1.33',
};
const eksTarget = (extra: Record<string, unknown> = {}) =>
  target({ provider: 'eks', eks: { ...EKS, credentialsSecret: 'aws', ...extra } });

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

// ---- GKE: a recording fetch (the auth client's transporter) ---------------------------------------

const GAPI = 'https://container.googleapis.com/v1';
const QUERY = '?$alt=json%3Benum-encoding=int';
const GKE_CLUSTER_URL = `${GAPI}/projects/proj-1/locations/us-central1/clusters/burst-a1${QUERY}`;
const GKE_CREATE_URL = `${GAPI}/projects/proj-1/locations/us-central1/clusters${QUERY}`;
const TOKEN_URL = 'https://oauth2.googleapis.com/token';

const gkeAbsent: GoogleReply = {
  method: 'GET',
  url: GKE_CLUSTER_URL,
  status: 404,
  json: { error: { code: 404, message: 'Not found: burst-a1.', status: 'NOT_FOUND' } },
};
const gkeCreated: GoogleReply = {
  method: 'POST',
  url: GKE_CREATE_URL,
  status: 200,
  json: { name: 'operation-1', status: 'RUNNING' },
};
function gkeCluster(status: string, extra: Record<string, unknown> = {}): GoogleReply {
  return {
    method: 'GET',
    url: GKE_CLUSTER_URL,
    status: 200,
    json: {
      name: 'burst-a1',
      status,
      endpoint: '34.1.2.3',
      masterAuth: { clusterCaCertificate: CA },
      resourceLabels: OWN_MARKS,
      ...extra,
    },
  };
}
const gkeToken: GoogleReply = {
  method: 'POST',
  url: TOKEN_URL,
  status: 200,
  json: { access_token: ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' },
};

// ---- EKS: a recording requestHandler ---------------------------------------------------------------

const EKS_CLUSTER_PATH = '/clusters/burst-a1';
const EKS_NODEGROUP_PATH = '/clusters/burst-a1/node-groups/flux-nodes';
const EKS_ENDPOINT = 'https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com';

const awsNotFound = (path: string): AwsReply => ({
  method: 'GET',
  path,
  status: 404,
  json: { message: 'not found' },
  errorType: 'ResourceNotFoundException',
});
function eksCluster(status: string, tags: Record<string, string> | null = OWN_MARKS): AwsReply {
  return {
    method: 'GET',
    path: EKS_CLUSTER_PATH,
    status: 200,
    json: {
      cluster: {
        name: 'burst-a1',
        status,
        ...(status === 'CREATING' ? {} : { endpoint: EKS_ENDPOINT, certificateAuthority: { data: CA } }),
        ...(tags === null ? {} : { tags }),
      },
    },
  };
}
function eksNodegroup(status: string): AwsReply {
  return {
    method: 'GET',
    path: EKS_NODEGROUP_PATH,
    status: 200,
    json: { nodegroup: { nodegroupName: 'flux-nodes', clusterName: 'burst-a1', status } },
  };
}

// ---- the connectors under test ----------------------------------------------------------------------

interface Installed {
  readonly server: string | undefined;
  readonly token: string | undefined;
  readonly target: string;
}

function recordingInstall(): { installs: Installed[]; install: InstallOperator } {
  const installs: Installed[] = [];
  return {
    installs,
    install: (config: KubeConfig, t: DefaultedBurstTarget) => {
      installs.push({
        server: config.getCurrentCluster()?.server,
        token: config.getCurrentUser()?.token,
        target: `${t.metadata.namespace}/${t.metadata.name}`,
      });
      return Promise.resolve();
    },
  };
}

const gcp = secret('gcp', { 'credentials.json': SA_JSON });
const aws = secret('aws', {
  AWS_ACCESS_KEY_ID: AWS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: AWS_SECRET,
  AWS_SESSION_TOKEN: AWS_SESSION,
});

function gkeConnectors(replies: readonly GoogleReply[], readSecret = secrets(gcp)) {
  const google = fakeGoogle(replies);
  const { installs, install } = recordingInstall();
  const connectors = providerConnectors({
    readSecret,
    providerOptions: { gke: { fetch: google.fetch } },
    installOperator: install,
  });
  return { connectors, google, installs };
}

function eksConnectors(replies: readonly AwsReply[], readSecret = secrets(aws)) {
  const fake = fakeAws(replies);
  const { installs, install } = recordingInstall();
  let n = 0;
  const connectors = providerConnectors({
    readSecret,
    providerOptions: {
      eks: {
        requestHandler: fake.handler,
        now: () => new Date('2024-01-15T12:00:00Z'),
        clientRequestToken: () => `token-${++n}`,
      },
    },
    installOperator: install,
  });
  return { connectors, aws: fake, installs };
}

let watch: NetworkWatch;

beforeEach(() => {
  watch = watchNetwork();
  messages.length = 0;
});

afterEach(() => {
  watch.stop();
  assert.deepEqual(watch.events, [], 'no socket, http request or fetch may be made');
  for (const message of messages) {
    for (const value of SECRET_VALUES) {
      assert.ok(!message.includes(value), `a credential shows in: ${message}`);
    }
  }
});

async function connect(
  connector: (t: DefaultedBurstTarget) => Promise<ProviderKubeConfig>,
  t: DefaultedBurstTarget,
) {
  const result = await connector(t);
  record(result);
  return result;
}

describe('GKE connector', () => {
  it('creates an absent cluster (default nodeCount 1) and reports Provisioning without installing', async () => {
    const { connectors, google, installs } = gkeConnectors([gkeAbsent, gkeCreated]);
    const result = await connect(connectors.gke, gkeTarget());
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'Provisioning');
    assert.match(
      result.message,
      /^GKE cluster proj-1\/us-central1\/burst-a1 is being created \(creating cluster burst-a1/,
    );
    assert.deepEqual(
      google.calls.map((c) => `${c.method} ${c.url}`),
      [`GET ${GKE_CLUSTER_URL}`, `POST ${GKE_CREATE_URL}`],
    );
    const created = google.calls[1]?.body as {
      cluster: { nodePools: { initialNodeCount: number; config: { machineType: string } }[] };
    };
    assert.equal(created.cluster.nodePools[0]?.initialNodeCount, 1);
    assert.equal(created.cluster.nodePools[0]?.config.machineType, 'e2-standard-8');
    assert.equal(installs.length, 0);
    assert.equal(google.left(), 0);
  });

  it('passes a given nodeCount to the node pool', async () => {
    const { connectors, google } = gkeConnectors([gkeAbsent, gkeCreated]);
    await connect(connectors.gke, gkeTarget({ nodeCount: 3 }));
    const created = google.calls[1]?.body as { cluster: { nodePools: { initialNodeCount: number }[] } };
    assert.equal(created.cluster.nodePools[0]?.initialNodeCount, 3);
  });

  it('keeps reporting Provisioning while the cluster is PROVISIONING (no create)', async () => {
    const { connectors, google } = gkeConnectors([gkeCluster('PROVISIONING')]);
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'Provisioning');
    assert.equal(google.calls.length, 1);
  });

  it('when RUNNING: loads the kubeconfig, installs the operator there once, and connects', async () => {
    const { connectors, google, installs } = gkeConnectors([
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
    ]);
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.source, 'GKE cluster proj-1/us-central1/burst-a1');
    assert.equal(result.user, 'gke_proj-1_us-central1_burst-a1');
    assert.equal(result.config.getCurrentCluster()?.server, 'https://34.1.2.3');
    assert.equal(result.config.getCurrentCluster()?.caData, CA);
    assert.equal(result.config.getCurrentUser()?.token, ACCESS_TOKEN);
    assert.deepEqual(installs, [{ server: 'https://34.1.2.3', token: ACCESS_TOKEN, target: 'team-a/cloud' }]);
    // The next check gets a fresh kubeconfig but does not install again (same generation and server).
    const again = await connect(connectors.gke, gkeTarget());
    assert.ok(again.ok);
    assert.equal(installs.length, 1);
    assert.equal(google.left(), 0);
  });

  it('installs again after a spec change (new generation)', async () => {
    const { connectors, installs } = gkeConnectors([
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
    ]);
    await connect(connectors.gke, gkeTarget());
    const changed = gkeTarget();
    changed.metadata.generation = 2;
    await connect(connectors.gke, changed);
    assert.equal(installs.length, 2);
  });

  it('reports a failed install as InstallFailed, scrubbed, and tries again at the next check', async () => {
    const google = fakeGoogle([
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
      gkeCluster('RUNNING'),
      gkeCluster('RUNNING'),
      gkeToken,
    ]);
    let attempts = 0;
    const connectors = providerConnectors({
      readSecret: secrets(gcp),
      providerOptions: { gke: { fetch: google.fetch } },
      installOperator: (config) => {
        attempts++;
        if (attempts === 1) {
          return Promise.reject(
            new Error(`request with Bearer ${config.getCurrentUser()?.token ?? ''} refused`),
          );
        }
        return Promise.resolve();
      },
    });
    const first = await connect(connectors.gke, gkeTarget());
    assert.ok(!first.ok);
    assert.equal(first.reason, 'InstallFailed');
    assert.match(
      first.message,
      /installing the operator on GKE cluster proj-1\/us-central1\/burst-a1 \(https:\/\/34\.1\.2\.3\) failed/,
    );
    assert.match(first.message, /\[REDACTED\]/);
    const second = await connect(connectors.gke, gkeTarget());
    assert.ok(second.ok);
    assert.equal(attempts, 2);
  });

  it('reports a cluster in ERROR as ProvisionFailed with the cloud message', async () => {
    const { connectors } = gkeConnectors([gkeCluster('ERROR', { statusMessage: 'quota CPUS exceeded' })]);
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'ProvisionFailed');
    assert.match(result.message, /failed: cluster ERROR: quota CPUS exceeded/);
  });

  it('reports PERMISSION_DENIED as Forbidden', async () => {
    const { connectors } = gkeConnectors([
      {
        method: 'GET',
        url: GKE_CLUSTER_URL,
        status: 403,
        json: {
          error: {
            code: 403,
            message: 'Permission denied on container.clusters.get',
            status: 'PERMISSION_DENIED',
          },
        },
      },
    ]);
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'Forbidden');
    assert.match(result.message, /Permission denied on container\.clusters\.get/);
    assert.match(result.message, /roles\/container\.admin/);
  });

  it('reports a missing credentials Secret as SecretMissing, before any cloud call', async () => {
    const { connectors, google } = gkeConnectors([], secrets());
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'SecretMissing');
    assert.match(result.message, /^Secret team-a\/gcp \(spec\.gke\.credentialsSecret\) does not exist/);
    assert.match(result.message, /credentials\.json/);
    assert.equal(google.calls.length, 0);
  });

  it('reports a Secret without credentials.json as KeyMissing, naming the keys it has', async () => {
    const { connectors, google } = gkeConnectors([], secrets(secret('gcp', { 'key.json': SA_JSON })));
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'KeyMissing');
    assert.match(
      result.message,
      /Secret team-a\/gcp \(spec\.gke\.credentialsSecret\) has no \(or an empty\) key credentials\.json; it has key\.json/,
    );
    assert.equal(google.calls.length, 0);
  });

  it('reports a key that is not a service account key as InvalidCredentials without quoting it', async () => {
    const bad = JSON.stringify({ type: 'authorized_user', refresh_token: AWS_SESSION });
    const { connectors } = gkeConnectors([], secrets(secret('gcp', { 'credentials.json': bad })));
    const result = await connect(connectors.gke, gkeTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'InvalidCredentials');
    assert.match(
      result.message,
      /Secret team-a\/gcp key credentials\.json: gke: serviceAccountJson must be a service account key/,
    );
  });

  it('reports Provisioning through connectTarget, with the reason the status code accepts', async () => {
    const { connectors } = gkeConnectors([gkeAbsent, gkeCreated]);
    const result = await connectTarget({
      target: gkeTarget(),
      readSecret: secrets(gcp),
      providers: connectors,
    });
    assert.ok(!result.ok);
    record(result);
    assert.equal(result.reason, 'Provisioning');
    const status = burstTargetStatus({
      generation: 1,
      previous: undefined,
      outcome: result,
      now: new Date('2024-01-15T12:00:00Z'),
    });
    assert.equal(status.conditions?.[0]?.reason, 'Provisioning');
    assert.equal(status.conditions?.[0]?.status, 'False');
  });
});

describe('EKS connector', () => {
  it('creates the control plane, then the node group, then connects and installs', async () => {
    const {
      connectors,
      aws: fake,
      installs,
    } = eksConnectors([
      // check 1: no cluster -> create the control plane
      awsNotFound(EKS_CLUSTER_PATH),
      {
        method: 'POST',
        path: '/clusters',
        status: 200,
        json: { cluster: { name: 'burst-a1', status: 'CREATING' } },
      },
      // check 2: still creating
      eksCluster('CREATING'),
      // check 3: active, no node group -> create it
      eksCluster('ACTIVE'),
      awsNotFound(EKS_NODEGROUP_PATH),
      { method: 'POST', path: '/clusters/burst-a1/node-groups', status: 200, json: {} },
      // check 4: both active -> kubeconfig (describe again) and install
      eksCluster('ACTIVE'),
      eksNodegroup('ACTIVE'),
      eksCluster('ACTIVE'),
      eksNodegroup('ACTIVE'),
    ]);
    const t = eksTarget();
    const first = await connect(connectors.eks, t);
    assert.ok(!first.ok);
    assert.equal(first.reason, 'Provisioning');
    assert.match(
      first.message,
      /^EKS cluster us-east-1\/burst-a1 is being created \(creating cluster burst-a1\)/,
    );
    assert.deepEqual(fake.calls[1]?.body, {
      name: 'burst-a1',
      roleArn: EKS.roleArn,
      version: '1.33',
      resourcesVpcConfig: { subnetIds: EKS.subnetIds, endpointPublicAccess: true },
      accessConfig: {
        authenticationMode: 'API_AND_CONFIG_MAP',
        bootstrapClusterCreatorAdminPermissions: true,
      },
      tags: { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: UID },
      clientRequestToken: 'token-1',
    });
    assert.match(fake.calls[0]?.authorization ?? '', new RegExp(`Credential=${AWS_KEY_ID}/`));

    const second = await connect(connectors.eks, t);
    assert.ok(!second.ok);
    assert.equal(second.reason, 'Provisioning');

    const third = await connect(connectors.eks, t);
    assert.ok(!third.ok);
    assert.equal(third.reason, 'Provisioning');
    assert.match(third.message, /creating node group flux-nodes/);
    const nodegroup = fake.calls[5]?.body as Record<string, unknown>;
    assert.deepEqual(nodegroup.instanceTypes, ['c6i.2xlarge']);
    assert.deepEqual(nodegroup.scalingConfig, { minSize: 4, maxSize: 4, desiredSize: 4 });
    assert.equal(nodegroup.nodeRole, EKS.nodeRoleArn);
    assert.equal(installs.length, 0);

    const fourth = await connect(connectors.eks, t);
    assert.ok(fourth.ok, JSON.stringify(fourth));
    assert.equal(fourth.source, 'EKS cluster us-east-1/burst-a1');
    assert.equal(fourth.config.getCurrentCluster()?.server, EKS_ENDPOINT);
    assert.match(fourth.config.getCurrentUser()?.token ?? '', /^k8s-aws-v1\./);
    assert.equal(installs.length, 1);
    assert.equal(installs[0]?.server, EKS_ENDPOINT);
    assert.equal(installs[0]?.token, fourth.config.getCurrentUser()?.token);
    assert.equal(fake.left(), 0);
  });

  it('reports a node group that failed as ProvisionFailed', async () => {
    const { connectors } = eksConnectors([eksCluster('ACTIVE'), eksNodegroup('CREATE_FAILED')]);
    const result = await connect(connectors.eks, eksTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'ProvisionFailed');
    assert.match(result.message, /node group CREATE_FAILED/);
  });

  it('reports AccessDenied as Forbidden and an unknown key as Unauthorized, never quoting the keys', async () => {
    const denied = eksConnectors([
      {
        method: 'GET',
        path: EKS_CLUSTER_PATH,
        status: 403,
        json: { message: `User ${AWS_KEY_ID} is not authorized to perform eks:DescribeCluster` },
        errorType: 'AccessDeniedException',
      },
    ]);
    const forbidden = await connect(denied.connectors.eks, eksTarget());
    assert.ok(!forbidden.ok);
    assert.equal(forbidden.reason, 'Forbidden');
    assert.match(forbidden.message, /not authorized to perform eks:DescribeCluster/);
    const unknown = eksConnectors([
      {
        method: 'GET',
        path: EKS_CLUSTER_PATH,
        status: 403,
        json: { message: `The security token included in the request is invalid: ${AWS_SECRET}` },
        errorType: 'UnrecognizedClientException',
      },
    ]);
    const unauthorized = await connect(unknown.connectors.eks, eksTarget());
    assert.ok(!unauthorized.ok);
    assert.equal(unauthorized.reason, 'Unauthorized');
    assert.match(unauthorized.message, /security token included in the request is invalid/);
  });

  it('reports a Secret without the secret key as KeyMissing, naming keys only', async () => {
    const partial = secret('aws', { AWS_ACCESS_KEY_ID: AWS_KEY_ID });
    const { connectors, aws: fake } = eksConnectors([], secrets(partial));
    const result = await connect(connectors.eks, eksTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'KeyMissing');
    assert.equal(
      result.message,
      'Secret team-a/aws (spec.eks.credentialsSecret) has no (or an empty) key AWS_SECRET_ACCESS_KEY; it has AWS_ACCESS_KEY_ID; add it',
    );
    assert.equal(fake.calls.length, 0);
  });

  it('reports a missing Secret as SecretMissing', async () => {
    const { connectors } = eksConnectors([], secrets());
    const result = await connect(connectors.eks, eksTarget());
    assert.ok(!result.ok);
    assert.equal(result.reason, 'SecretMissing');
    assert.match(result.message, /Secret team-a\/aws \(spec\.eks\.credentialsSecret\) does not exist/);
    assert.match(result.message, /AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/);
  });
});

describe('deleteProvisioned', () => {
  it('deletes the EKS node group, then the control plane, then reports done', async () => {
    const { connectors, aws: fake } = eksConnectors([
      eksCluster('ACTIVE'),
      eksNodegroup('ACTIVE'),
      eksCluster('ACTIVE'),
      eksNodegroup('ACTIVE'),
      { method: 'DELETE', path: EKS_NODEGROUP_PATH, status: 200, json: {} },
      eksCluster('ACTIVE'),
      awsNotFound(EKS_NODEGROUP_PATH),
      eksCluster('ACTIVE'),
      awsNotFound(EKS_NODEGROUP_PATH),
      { method: 'DELETE', path: EKS_CLUSTER_PATH, status: 200, json: {} },
      awsNotFound(EKS_CLUSTER_PATH),
    ]);
    const t = eksTarget();
    const first = await connectors.deleteProvisioned(t);
    record(first);
    assert.deepEqual(first.ok && first.done, false);
    const second = await connectors.deleteProvisioned(t);
    assert.deepEqual(second.ok && second.done, false);
    const third = await connectors.deleteProvisioned(t);
    assert.ok(third.ok);
    assert.equal(third.done, true);
    assert.deepEqual(
      fake.calls.filter((c) => c.method === 'DELETE').map((c) => c.path),
      [EKS_NODEGROUP_PATH, EKS_CLUSTER_PATH],
    );
    assert.equal(fake.left(), 0);
  });

  it('is done at once for a kubeconfig target', async () => {
    const { connectors } = eksConnectors([]);
    const result = await connectors.deleteProvisioned(
      target({ provider: 'kubeconfig', kubeconfig: { secretName: 'kc' } }),
    );
    assert.deepEqual(result, { ok: true, done: true, message: 'nothing was provisioned' });
  });
});

// ---- issue 23: a BurstTarget naming a cluster that already exists takes nothing over ----------------

/** Existing clusters named by `cloud` that are not `cloud`'s, by their labels/tags, and why not. */
const NOT_CLOUDS: readonly {
  readonly what: string;
  readonly marks: Record<string, string> | null;
  readonly why: (mark: string) => RegExp;
}[] = [
  {
    what: 'a cluster the operator did not make (no marks)',
    marks: null,
    why: (mark) => new RegExp(`it has no ${mark} ${OWNER_UID_KEY}, so this operator did not make it`),
  },
  {
    what: 'a cluster the operator made for another BurstTarget (another uid)',
    marks: { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OTHER_UID },
    why: (mark) =>
      new RegExp(
        `made for another BurstTarget \\(its ${mark} ${OWNER_UID_KEY} is ${OTHER_UID}, this BurstTarget's uid is ${UID}\\)`,
      ),
  },
];

/** The parts every ClusterNotOwned message has: the cluster, why, and what to do instead. */
function assertRefused(result: ProviderKubeConfig, source: string, field: string, why: RegExp): void {
  assert.ok(!result.ok, 'the cluster must not be adopted');
  assert.equal(result.reason, 'ClusterNotOwned');
  assert.ok(result.message.startsWith(`${source} is not this BurstTarget's: `), result.message);
  assert.match(result.message, why);
  assert.match(result.message, /leaves this one alone and will not delete it with the BurstTarget/);
  assert.match(
    result.message,
    new RegExp(`set ${field.replaceAll('.', '\\.')} to a cluster that does not exist yet`),
  );
  assert.match(result.message, /use a BurstTarget with provider: kubeconfig/);
  const status = burstTargetStatus({ generation: 1, previous: undefined, outcome: result, now: new Date(0) });
  assert.deepEqual(
    status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [['Connected', 'False', 'ClusterNotOwned', result.message]],
  );
}

describe('a GKE BurstTarget naming a cluster that already exists', () => {
  for (const { what, marks, why } of NOT_CLOUDS) {
    it(`refuses ${what}: no kubeconfig, no install, and deleting the BurstTarget leaves it`, async () => {
      const existing = gkeCluster('RUNNING', { resourceLabels: marks ?? undefined });
      const { connectors, google, installs } = gkeConnectors([existing, existing, existing]);
      const result = await connect(connectors.gke, gkeTarget());
      assertRefused(result, 'GKE cluster proj-1/us-central1/burst-a1', 'spec.gke.clusterName', why('label'));
      // Checked again later (backoff): still refused, still only read.
      assert.equal((await connect(connectors.gke, gkeTarget())).ok, false);
      assert.equal(installs.length, 0, 'nothing installed there with the operator identity');
      // The BurstTarget is deleted: its finalizer's step is done at once, and the cluster stays.
      const deletion = await connectors.deleteProvisioned(gkeTarget());
      record(deletion);
      assert.ok(deletion.ok);
      assert.equal(deletion.done, true);
      assert.match(
        deletion.message,
        /^GKE cluster proj-1\/us-central1\/burst-a1 is left alone, not deleted: /,
      );
      assert.deepEqual(
        google.calls.map((c) => `${c.method} ${c.url}`),
        [`GET ${GKE_CLUSTER_URL}`, `GET ${GKE_CLUSTER_URL}`, `GET ${GKE_CLUSTER_URL}`],
        'only reads: no create, no access token, no delete',
      );
    });
  }

  it('adopts the cluster it made after a restart, and deletes it with its BurstTarget', async () => {
    // Before the restart: the operator creates the cluster, labelled with the BurstTarget's uid.
    const before = gkeConnectors([gkeAbsent, gkeCreated]);
    const creating = await connect(before.connectors.gke, gkeTarget());
    assert.ok(!creating.ok);
    assert.equal(creating.reason, 'Provisioning');
    const sent = (before.google.calls[1]?.body as { cluster: { resourceLabels: Record<string, string> } })
      .cluster.resourceLabels;
    assert.equal(sent[OWNER_UID_KEY], UID, 'the create request marks the cluster with the uid');
    // After it (new connectors: nothing remembered), GKE reports the cluster with the labels it was made with.
    const made = gkeCluster('RUNNING', { resourceLabels: sent });
    const after = gkeConnectors([
      made,
      made,
      gkeToken,
      made,
      made,
      { method: 'DELETE', url: GKE_CLUSTER_URL, status: 200, json: { name: 'operation-del' } },
      gkeAbsent,
    ]);
    const adopted = await connect(after.connectors.gke, gkeTarget());
    assert.ok(adopted.ok, JSON.stringify(adopted));
    assert.deepEqual(after.installs, [
      { server: 'https://34.1.2.3', token: ACCESS_TOKEN, target: 'team-a/cloud' },
    ]);
    const first = await after.connectors.deleteProvisioned(gkeTarget());
    record(first);
    assert.deepEqual(first.ok && first.done, false);
    const second = await after.connectors.deleteProvisioned(gkeTarget());
    assert.ok(second.ok);
    assert.equal(second.done, true);
    assert.deepEqual(
      after.google.calls.filter((c) => c.method === 'DELETE').map((c) => c.url),
      [GKE_CLUSTER_URL],
    );
    assert.equal(after.google.left(), 0);
  });
});

describe('an EKS BurstTarget naming a cluster that already exists', () => {
  for (const { what, marks, why } of NOT_CLOUDS) {
    it(`refuses ${what}: no node group added, no install, and deleting the BurstTarget leaves it`, async () => {
      // ACTIVE without a node group: before the fix, the operator added its node group there.
      const existing = eksCluster('ACTIVE', marks);
      const { connectors, aws: fake, installs } = eksConnectors([existing, existing, existing]);
      const result = await connect(connectors.eks, eksTarget());
      assertRefused(result, 'EKS cluster us-east-1/burst-a1', 'spec.eks.clusterName', why('tag'));
      assert.equal((await connect(connectors.eks, eksTarget())).ok, false);
      assert.equal(installs.length, 0, 'nothing installed there with the operator identity');
      const deletion = await connectors.deleteProvisioned(eksTarget());
      record(deletion);
      assert.ok(deletion.ok);
      assert.equal(deletion.done, true);
      assert.match(deletion.message, /^EKS cluster us-east-1\/burst-a1 is left alone, not deleted: /);
      assert.deepEqual(
        fake.calls.map((c) => `${c.method} ${c.path}`),
        [`GET ${EKS_CLUSTER_PATH}`, `GET ${EKS_CLUSTER_PATH}`, `GET ${EKS_CLUSTER_PATH}`],
        'only reads: no node group, no delete',
      );
    });
  }

  it('adopts the cluster it made after a restart, and deletes it with its BurstTarget', async () => {
    const before = eksConnectors([
      awsNotFound(EKS_CLUSTER_PATH),
      {
        method: 'POST',
        path: '/clusters',
        status: 200,
        json: { cluster: { name: 'burst-a1', status: 'CREATING' } },
      },
    ]);
    const creating = await connect(before.connectors.eks, eksTarget());
    assert.ok(!creating.ok);
    assert.equal(creating.reason, 'Provisioning');
    const sent = (before.aws.calls[1]?.body as { tags: Record<string, string> }).tags;
    assert.equal(sent[OWNER_UID_KEY], UID, 'the create request tags the cluster with the uid');
    // After the restart, EKS reports the cluster with the tags it was made with (and its node group).
    const made = eksCluster('ACTIVE', sent);
    const after = eksConnectors([
      made,
      eksNodegroup('ACTIVE'),
      made,
      eksNodegroup('ACTIVE'),
      // deletion, step 1: the node group
      made,
      eksNodegroup('ACTIVE'),
      made,
      eksNodegroup('ACTIVE'),
      { method: 'DELETE', path: EKS_NODEGROUP_PATH, status: 200, json: {} },
      // step 2: the control plane
      made,
      awsNotFound(EKS_NODEGROUP_PATH),
      made,
      awsNotFound(EKS_NODEGROUP_PATH),
      { method: 'DELETE', path: EKS_CLUSTER_PATH, status: 200, json: {} },
      // step 3: gone
      awsNotFound(EKS_CLUSTER_PATH),
    ]);
    const adopted = await connect(after.connectors.eks, eksTarget());
    assert.ok(adopted.ok, JSON.stringify(adopted));
    assert.equal(after.installs.length, 1);
    assert.equal(after.installs[0]?.server, EKS_ENDPOINT);
    const steps: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const step = await after.connectors.deleteProvisioned(eksTarget());
      record(step);
      assert.ok(step.ok, JSON.stringify(step));
      steps.push(step.done);
    }
    assert.deepEqual(steps, [false, false, true]);
    assert.deepEqual(
      after.aws.calls.filter((c) => c.method === 'DELETE').map((c) => c.path),
      [EKS_NODEGROUP_PATH, EKS_CLUSTER_PATH],
    );
    assert.equal(after.aws.left(), 0);
  });
});
