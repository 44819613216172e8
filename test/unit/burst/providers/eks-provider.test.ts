/**
 * EKS provider against recorded request expectations. The real `EKSClient` runs (serialization,
 * SigV4 signing, error parsing); its one seam is the supported `requestHandler` option: an object
 * whose `handle(request)` records the request and answers from a table. The kubeconfig token is
 * checked against an independent SigV4 presign computed here with node:crypto. Nothing reaches a
 * network: the diagnostics-channel watch must stay silent.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'yaml';
import { NOT_OWNED, ProviderError } from '../../../../src/burst/providers/cluster-provider.ts';
import {
  EksProvider,
  stsHost,
  type EksClusterSpec,
  type EksCredentials,
  type EksProviderOptions,
} from '../../../../src/burst/providers/eks-provider.ts';
import { OWNER_UID_KEY } from '../../../../src/burst/providers/ownership.ts';
import { watchNetwork, type NetworkWatch } from './no-network.ts';
import { fakeAws, type AwsCall, type AwsReply } from './recorders.ts';

const CREDENTIALS: EksCredentials = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
/** The uid of the BurstTarget the cluster is made for, as the API server writes uids. */
const OWNER = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const OTHER_OWNER = '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';
/** The tags a cluster made for SPEC's BurstTarget carries. */
const OWN_TAGS = { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OWNER };
const SPEC: EksClusterSpec = {
  region: 'us-east-1',
  clusterName: 'burst-a1',
  roleArn: 'arn:aws:iam::111122223333:role/flux-burst-cluster',
  subnetIds: ['subnet-aaa', 'subnet-bbb'],
  nodeRoleArn: 'arn:aws:iam::111122223333:role/flux-burst-nodes',
  instanceTypes: ['c6i.2xlarge'],
  nodeCount: 4,
  ownerUid: OWNER,
};
const NOW = new Date('2024-01-15T12:00:00Z');
const ENDPOINT = 'https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com';
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
const CLUSTER_PATH = '/clusters/burst-a1';
const NODEGROUP_PATH = '/clusters/burst-a1/node-groups/flux-nodes';

const notFound = (method: string, path: string): AwsReply => ({
  method,
  path,
  status: 404,
  json: { message: 'No cluster found for name: burst-a1.' },
  errorType: 'ResourceNotFoundException',
});

/** A DescribeCluster answer; `tags` null: a cluster without tags. */
function cluster(status: string, tags: Record<string, string> | null = OWN_TAGS): AwsReply {
  return {
    method: 'GET',
    path: CLUSTER_PATH,
    status: 200,
    json: {
      cluster: {
        name: 'burst-a1',
        arn: 'arn:aws:eks:us-east-1:111122223333:cluster/burst-a1',
        status,
        ...(status === 'CREATING' ? {} : { endpoint: ENDPOINT, certificateAuthority: { data: CA } }),
        ...(tags === null ? {} : { tags }),
      },
    },
  };
}

function nodegroup(status: string, issues: unknown[] = []): AwsReply {
  return {
    method: 'GET',
    path: NODEGROUP_PATH,
    status: 200,
    json: { nodegroup: { nodegroupName: 'flux-nodes', clusterName: 'burst-a1', status, health: { issues } } },
  };
}

let watch: NetworkWatch;
const providers: EksProvider[] = [];

function provider(replies: readonly AwsReply[], options: Partial<EksProviderOptions> = {}) {
  const aws = fakeAws(replies);
  let n = 0;
  const p = new EksProvider({
    credentials: CREDENTIALS,
    requestHandler: aws.handler as EksProviderOptions['requestHandler'],
    now: () => NOW,
    clientRequestToken: () => `token-${++n}`,
    ...options,
  });
  providers.push(p);
  return { p, aws };
}

const route = (calls: readonly AwsCall[]): string[] => calls.map((c) => `${c.method} ${c.path}`);

beforeEach(() => {
  watch = watchNetwork();
});

afterEach(async () => {
  watch.stop();
  for (const p of providers.splice(0)) await p.close();
  assert.deepEqual(watch.events, [], 'no socket, http request or fetch may be made');
});

describe('EksProvider.ensureCluster', () => {
  it('creates an absent control plane, signed with the given keys, and reports Provisioning', async () => {
    const { p, aws } = provider([
      notFound('GET', CLUSTER_PATH),
      {
        method: 'POST',
        path: '/clusters',
        status: 200,
        json: { cluster: { name: 'burst-a1', status: 'CREATING' } },
      },
    ]);
    assert.deepEqual(await p.ensureCluster(SPEC), {
      phase: 'Provisioning',
      message: 'creating cluster burst-a1',
    });
    assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`, 'POST /clusters']);
    assert.deepEqual(aws.calls[1]?.body, {
      name: 'burst-a1',
      roleArn: 'arn:aws:iam::111122223333:role/flux-burst-cluster',
      resourcesVpcConfig: { subnetIds: ['subnet-aaa', 'subnet-bbb'], endpointPublicAccess: true },
      accessConfig: {
        authenticationMode: 'API_AND_CONFIG_MAP',
        bootstrapClusterCreatorAdminPermissions: true,
      },
      tags: { 'managed-by': 'flux-operator', 'flux-operator-burst-target-uid': OWNER },
      clientRequestToken: 'token-1',
    });
    assert.equal(aws.calls[1]?.contentType, 'application/json');
    for (const call of aws.calls) {
      assert.equal(call.host, 'eks.us-east-1.amazonaws.com');
      assert.match(
        call.authorization ?? '',
        /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/eks\/aws4_request, /,
      );
    }
    assert.equal(aws.left(), 0);
  });

  it('passes the Kubernetes version when given', async () => {
    const { p, aws } = provider([
      notFound('GET', CLUSTER_PATH),
      { method: 'POST', path: '/clusters', status: 200, json: {} },
    ]);
    await p.ensureCluster({ ...SPEC, kubernetesVersion: '1.33' });
    assert.equal((aws.calls[1]?.body as Record<string, unknown>).version, '1.33');
  });

  it('waits (Provisioning, no call) while the control plane is CREATING', async () => {
    const { p, aws } = provider([cluster('CREATING')]);
    assert.deepEqual(await p.ensureCluster(SPEC), { phase: 'Provisioning', message: 'cluster CREATING' });
    assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`]);
  });

  it('creates the node group once the control plane is ACTIVE', async () => {
    const { p, aws } = provider([
      cluster('ACTIVE'),
      notFound('GET', NODEGROUP_PATH),
      {
        method: 'POST',
        path: '/clusters/burst-a1/node-groups',
        status: 200,
        json: { nodegroup: { status: 'CREATING' } },
      },
    ]);
    assert.deepEqual(await p.ensureCluster(SPEC), {
      phase: 'Provisioning',
      endpoint: ENDPOINT,
      caData: CA,
      message: 'creating node group flux-nodes',
    });
    assert.deepEqual(route(aws.calls), [
      `GET ${CLUSTER_PATH}`,
      `GET ${NODEGROUP_PATH}`,
      'POST /clusters/burst-a1/node-groups',
    ]);
    assert.deepEqual(aws.calls[2]?.body, {
      nodegroupName: 'flux-nodes',
      nodeRole: 'arn:aws:iam::111122223333:role/flux-burst-nodes',
      subnets: ['subnet-aaa', 'subnet-bbb'],
      instanceTypes: ['c6i.2xlarge'],
      scalingConfig: { minSize: 4, maxSize: 4, desiredSize: 4 },
      tags: { 'managed-by': 'flux-operator', 'flux-operator-burst-target-uid': OWNER },
      clientRequestToken: 'token-1',
    });
  });

  it('only reports when both exist (idempotent)', async () => {
    const { p, aws } = provider([cluster('ACTIVE'), nodegroup('ACTIVE')]);
    assert.deepEqual(await p.ensureCluster(SPEC), {
      phase: 'Ready',
      endpoint: ENDPOINT,
      caData: CA,
      message: 'cluster ACTIVE, node group ACTIVE',
    });
    assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`, `GET ${NODEGROUP_PATH}`]);
  });

  it('rejects an invalid spec before any call', async () => {
    const { p, aws } = provider([]);
    await assert.rejects(p.ensureCluster({ ...SPEC, subnetIds: [] }), /subnetIds/);
    await assert.rejects(p.ensureCluster({ ...SPEC, clusterName: '-bad' }), ProviderError);
    await assert.rejects(p.ensureCluster({ ...SPEC, ownerUid: 'Not A Uid' }), /spec\.ownerUid/);
    assert.equal(aws.calls.length, 0);
  });
});

describe('EksProvider.describe', () => {
  const clusterCases: [string, string][] = [
    ['CREATING', 'Provisioning'],
    ['PENDING', 'Provisioning'],
    ['DELETING', 'Deleting'],
    ['FAILED', 'Error'],
  ];
  for (const [status, phase] of clusterCases) {
    it(`maps control plane ${status} to ${phase}`, async () => {
      const { p, aws } = provider([cluster(status)]);
      assert.equal((await p.describe(SPEC)).phase, phase);
      assert.equal(aws.calls.length, 1);
    });
  }
  const nodegroupCases: [string, string][] = [
    ['CREATING', 'Provisioning'],
    ['ACTIVE', 'Ready'],
    ['UPDATING', 'Ready'],
    ['DELETING', 'Deleting'],
    ['CREATE_FAILED', 'Error'],
    ['DELETE_FAILED', 'Error'],
    ['DEGRADED', 'Error'],
  ];
  for (const [status, phase] of nodegroupCases) {
    it(`maps an ACTIVE control plane with node group ${status} to ${phase}`, async () => {
      const { p } = provider([cluster('ACTIVE'), nodegroup(status)]);
      assert.equal((await p.describe(SPEC)).phase, phase);
    });
  }

  it('reports node group health issues', async () => {
    const { p } = provider([
      cluster('ACTIVE'),
      nodegroup('CREATE_FAILED', [{ code: 'AsgInstanceLaunchFailures', message: 'no capacity' }]),
    ]);
    assert.equal(
      (await p.describe(SPEC)).message,
      'cluster ACTIVE, node group CREATE_FAILED: AsgInstanceLaunchFailures no capacity',
    );
  });

  it('is Absent without a control plane, Provisioning without a node group', async () => {
    const absent = provider([notFound('GET', CLUSTER_PATH)]);
    assert.deepEqual(await absent.p.describe(SPEC), {
      phase: 'Absent',
      message: 'cluster burst-a1 does not exist',
    });
    const bare = provider([cluster('ACTIVE'), notFound('GET', NODEGROUP_PATH)]);
    const state = await bare.p.describe(SPEC);
    assert.equal(state.phase, 'Provisioning');
    assert.equal(
      bare.aws.calls.some((c) => c.method !== 'GET'),
      false,
      'describe must not create',
    );
  });
});

describe('EksProvider.deleteCluster', () => {
  it('deletes the node group first, waits for it, then deletes the control plane', async () => {
    const { p, aws } = provider([
      cluster('ACTIVE'),
      nodegroup('ACTIVE'),
      { method: 'DELETE', path: NODEGROUP_PATH, status: 200, json: { nodegroup: { status: 'DELETING' } } },
      cluster('ACTIVE'),
      nodegroup('DELETING'),
      cluster('ACTIVE'),
      notFound('GET', NODEGROUP_PATH),
      { method: 'DELETE', path: CLUSTER_PATH, status: 200, json: { cluster: { status: 'DELETING' } } },
      cluster('DELETING'),
      notFound('GET', CLUSTER_PATH),
    ]);
    for (let i = 0; i < 5; i++) await p.deleteCluster(SPEC);
    assert.deepEqual(route(aws.calls), [
      `GET ${CLUSTER_PATH}`,
      `GET ${NODEGROUP_PATH}`,
      `DELETE ${NODEGROUP_PATH}`,
      `GET ${CLUSTER_PATH}`,
      `GET ${NODEGROUP_PATH}`,
      `GET ${CLUSTER_PATH}`,
      `GET ${NODEGROUP_PATH}`,
      `DELETE ${CLUSTER_PATH}`,
      `GET ${CLUSTER_PATH}`,
      `GET ${CLUSTER_PATH}`,
    ]);
    assert.equal(aws.left(), 0);
  });
});

/** SigV4 query presign, written from the AWS specification, independent of the SDK. */
function expectedToken(creds: EksCredentials, region: string, clusterName: string, now: Date): string {
  const host = stsHost(region);
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${region}/sts/aws4_request`;
  const query: Record<string, string> = {
    Action: 'GetCallerIdentity',
    Version: '2011-06-15',
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${creds.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': '60',
    'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
    ...(creds.sessionToken ? { 'X-Amz-Security-Token': creds.sessionToken } : {}),
  };
  const enc = (s: string): string =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = (q: Record<string, string>): string =>
    Object.keys(q)
      .sort()
      .map((k) => `${enc(k)}=${enc(q[k] ?? '')}`)
      .join('&');
  const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery(query),
    `host:${host}\nx-k8s-aws-id:${clusterName}\n`,
    'host;x-k8s-aws-id',
    sha256(''), // no body, as aws-sdk-go / aws-iam-authenticator sign it
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const hmac = (key: string | Buffer, data: string): Buffer =>
    createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), region), 'sts'),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  const url = `https://${host}/?${canonicalQuery({ ...query, 'X-Amz-Signature': signature })}`;
  return `k8s-aws-v1.${Buffer.from(url).toString('base64url')}`;
}

describe('EksProvider token and kubeconfig', () => {
  it('makes the token aws eks get-token makes (fixed clock and keys: exact value)', async () => {
    const { p, aws } = provider([]);
    const token = await p.token(SPEC);
    assert.equal(token, expectedToken(CREDENTIALS, 'us-east-1', 'burst-a1', NOW));
    assert.equal(aws.calls.length, 0, 'signing is local');
    assert.match(token, /^k8s-aws-v1\.[A-Za-z0-9_-]+$/, 'unpadded base64url');
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
    assert.equal(url.origin, 'https://sts.us-east-1.amazonaws.com');
    assert.equal(url.pathname, '/');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.equal(url.searchParams.get('Version'), '2011-06-15');
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
    assert.equal(url.searchParams.get('X-Amz-Date'), '20240115T120000Z');
    assert.equal(
      url.searchParams.get('X-Amz-Credential'),
      'AKIAIOSFODNN7EXAMPLE/20240115/us-east-1/sts/aws4_request',
    );
    assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
    assert.equal(url.searchParams.has('x-k8s-aws-id'), false, 'the cluster id stays a signed header');
  });

  it('signs a session token in, and the signature depends on the cluster name', async () => {
    const creds = { ...CREDENTIALS, sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE+/=' };
    const { p } = provider([], { credentials: creds });
    const token = await p.token(SPEC);
    assert.equal(token, expectedToken(creds, 'us-east-1', 'burst-a1', NOW));
    assert.notEqual(await p.token({ ...SPEC, clusterName: 'other' }), token);
  });

  it('uses the default provider chain when no keys are given (environment here)', async () => {
    const saved = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = 'AKIAENVIRONMENTEXAMP';
    process.env.AWS_SECRET_ACCESS_KEY = 'environment-secret';
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      const { p } = provider([], { credentials: undefined });
      const env = { accessKeyId: 'AKIAENVIRONMENTEXAMP', secretAccessKey: 'environment-secret' };
      assert.equal(await p.token(SPEC), expectedToken(env, 'us-east-1', 'burst-a1', NOW));
    } finally {
      for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) {
        if (saved[key] === undefined) Reflect.deleteProperty(process.env, key);
        else process.env[key] = saved[key];
      }
    }
  });

  it('writes endpoint, CA and token into a kubeconfig for a Ready cluster', async () => {
    const { p } = provider([cluster('ACTIVE'), nodegroup('ACTIVE')]);
    const doc = parse(await p.kubeconfig(SPEC)) as Record<string, unknown>;
    const name = 'eks_us-east-1_burst-a1';
    assert.deepEqual(doc, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server: ENDPOINT, 'certificate-authority-data': CA } }],
      users: [{ name, user: { token: expectedToken(CREDENTIALS, 'us-east-1', 'burst-a1', NOW) } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      'current-context': name,
    });
  });

  it('refuses a cluster that is not Ready', async () => {
    const { p } = provider([cluster('ACTIVE'), nodegroup('CREATING')]);
    await assert.rejects(p.kubeconfig(SPEC), /not ready \(Provisioning\)/);
  });
});

describe('EksProvider credentials never leak', () => {
  it('scrubs keys echoed in an API error and keeps no cause', async () => {
    const creds = { ...CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLESESSION' };
    const { p } = provider(
      [
        {
          method: 'GET',
          path: CLUSTER_PATH,
          status: 403,
          json: { message: `denied: ${creds.secretAccessKey} ${creds.sessionToken} ${creds.accessKeyId}` },
          errorType: 'AccessDeniedException',
        },
      ],
      { credentials: creds },
    );
    const err = await p.describe(SPEC).then(
      () => assert.fail('describe should have failed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError);
    assert.equal(err.code, 'AccessDeniedException');
    assert.equal(err.cause, undefined);
    assert.equal(err.message, 'eks: describe cluster burst-a1: denied: [REDACTED] [REDACTED] [REDACTED]');
    const everything = `${err.stack ?? ''}\n${JSON.stringify(err)}`;
    for (const secret of [creds.secretAccessKey, creds.sessionToken, creds.accessKeyId]) {
      assert.ok(!everything.includes(secret), `${secret.slice(0, 4)}... leaked`);
    }
  });

  it('scrubs a token and a key echoed in a returned state', async () => {
    const { p } = provider([]);
    const token = await p.token(SPEC);
    const echo = `token ${token} secret ${CREDENTIALS.secretAccessKey}`;
    const { p: q } = provider([
      cluster('ACTIVE'),
      nodegroup('DEGRADED', [{ code: 'AccessDenied', message: echo }]),
    ]);
    const state = await q.describe(SPEC);
    assert.equal(state.phase, 'Error');
    assert.equal(
      state.message,
      'cluster ACTIVE, node group DEGRADED: AccessDenied token [REDACTED] secret [REDACTED]',
    );
  });
});

describe('EksProvider never acts on a cluster that is not its BurstTarget', () => {
  /** Clusters of SPEC's name that are not SPEC's BurstTarget's, by what their tags say. */
  const foreign: [string, Record<string, string> | null, RegExp][] = [
    ['no tags at all', null, /has no tag flux-operator-burst-target-uid, so this operator did not make it/],
    ['tags of its own', { team: 'prod' }, /has no tag flux-operator-burst-target-uid/],
    [
      "another BurstTarget's uid",
      { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OTHER_OWNER },
      new RegExp(
        `made for another BurstTarget \\(its tag ${OWNER_UID_KEY} is ${OTHER_OWNER}, this BurstTarget's uid is ${OWNER}\\)`,
      ),
    ],
    [
      'managed-by without a uid',
      { 'managed-by': 'flux-operator' },
      new RegExp(`but no ${OWNER_UID_KEY}.*add the tag ${OWNER_UID_KEY}=${OWNER}`),
    ],
  ];
  for (const [what, tags, why] of foreign) {
    it(`reports an ACTIVE cluster with ${what} as NotOwned and adds no node group to it`, async () => {
      const { p, aws } = provider([cluster('ACTIVE', tags)]);
      const state = await p.ensureCluster(SPEC);
      assert.equal(state.phase, 'NotOwned');
      assert.match(state.message, /^cluster burst-a1 exists, but /);
      assert.match(state.message, why);
      assert.equal(state.endpoint, undefined);
      assert.equal(state.caData, undefined);
      assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`]);
    });
  }

  it('refuses to delete it (ProviderError NotOwned): neither its node group nor the cluster', async () => {
    const { p, aws } = provider([cluster('ACTIVE', { [OWNER_UID_KEY]: OTHER_OWNER })]);
    const err = await p.deleteCluster(SPEC).then(
      () => assert.fail('deleteCluster should have refused'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError);
    assert.equal(err.code, NOT_OWNED);
    assert.match(
      err.message,
      /^eks: refusing to delete cluster burst-a1: it was made for another BurstTarget/,
    );
    assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`]);
  });

  it('hands out no kubeconfig for it', async () => {
    const { p, aws } = provider([cluster('ACTIVE', null)]);
    await assert.rejects(p.kubeconfig(SPEC), /not ready \(NotOwned\)/);
    assert.deepEqual(route(aws.calls), [`GET ${CLUSTER_PATH}`]);
  });
});
