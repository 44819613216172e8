// Issue 23, item 1: a GKE or EKS BurstTarget takes no cloud cluster over. The BurstTarget controller
// runs on the local control plane with the real provider connectors, providers and cloud SDKs; the
// clouds are played behind the SDKs' own transport seams (test/harness/fake-cloud.ts), in the shapes
// of the recorded API replies. The cluster the operator made answers with the local API server itself
// (a ServiceAccount token of it stands for the cloud's access token), so "adopted" means connected.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BURST_TARGET_PLURAL, GROUP, VERSION_V1ALPHA1, type BurstTargetStatus } from '../../src/api/index.ts';
import { providerConnectors } from '../../src/burst/providers/connectors.ts';
import { OWNER_UID_KEY } from '../../src/burst/providers/ownership.ts';
import {
  BurstTargetController,
  PROVISIONED_CLUSTER_FINALIZER,
} from '../../src/controllers/burst-target/burst-target-controller.ts';
import { deleteCustomObject } from '../../src/kube/custom-objects.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { readSecret } from '../../src/kube/secrets.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { cluster, httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';
import { createBurstTarget, installBurstTargetCrd } from '../harness/burst-target.ts';
import { installCrd } from '../harness/operator.ts';
import { fakeEks, fakeGke, type FakeCluster } from '../harness/fake-cloud.ts';

const PROJECT = 'proj-ownership';
const LOCATION = 'us-central1';
const REGION = 'us-east-1';
const OTHER_UID = '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';

interface LiveTarget {
  metadata: { uid?: string; finalizers?: string[] };
  status?: BurstTargetStatus;
}

async function read(clients: ApiClients, namespace: string, name: string): Promise<LiveTarget | undefined> {
  try {
    return (await clients.custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural: BURST_TARGET_PLURAL,
      name,
    })) as LiveTarget;
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

const TARGETS = ['takeover', 'other', 'mine', 'takeover-eks'];

/** Deletes the BurstTargets and waits until they are gone (their finalizers released). */
async function deleteTargets(clients: ApiClients, namespace: string): Promise<void> {
  if (namespace === '') return;
  for (const name of TARGETS) await deleteCustomObject(clients.custom, BURST_TARGET_PLURAL, namespace, name);
  for (const name of TARGETS) {
    await waitFor(async () => (await read(clients, namespace, name)) === undefined, {
      what: `BurstTarget ${namespace}/${name} gone`,
    });
  }
}

function connected(target: LiveTarget | undefined) {
  return target?.status?.conditions?.find((c) => c.type === 'Connected');
}

/** A service account key Google's auth library accepts (the fake cloud never checks signatures). */
function serviceAccountJson(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: PROJECT,
    private_key_id: 'ownership-test-key',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `burst@${PROJECT}.iam.gserviceaccount.com`,
    token_uri: 'https://oauth2.googleapis.com/token',
  });
}

/**
 * A ServiceAccount of `namespace` allowed what a burst target needs there (create MiniClusters and
 * Secrets), and a token of it: what the cloud's access token is for the cluster the operator made.
 */
async function burstToken(clients: ApiClients, namespace: string): Promise<string> {
  const name = 'burster';
  await clients.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await clients.objects.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace },
    rules: [
      { apiGroups: ['flux-framework.org'], resources: ['miniclusters'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ],
  } as never);
  await clients.objects.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  } as never);
  const request = await clients.core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  assert.ok(token, 'a token of the burster ServiceAccount');
  return token;
}

describe('GKE and EKS BurstTargets naming clusters that already exist', () => {
  it('refuse them with ClusterNotOwned and leave them when deleted; their own cluster is adopted after a restart and deleted with it', async (t) => {
    const { kc } = await cluster();
    const clients = apiClientsFor(kc);
    await installBurstTargetCrd(clients);
    // The shared CRD as every test file applies it (same manager, same content: a no-op once there).
    // Another manager's apply would update the CRD, and while the API server rebuilds its handler,
    // other test files' MiniCluster requests get 404s.
    await installCrd();
    // Registered before the namespace's deletion, so it runs first (after-hooks run in order): the
    // BurstTargets go while the controller still runs, before the namespace takes their Secrets away.
    let controller: BurstTargetController | undefined;
    let namespace = '';
    t.after(async () => {
      try {
        await deleteTargets(clients, namespace);
      } finally {
        await controller?.stop();
      }
    });
    namespace = await withNamespace(t, 'own');
    const server = kc.getCurrentCluster();
    assert.ok(server?.caFile, 'the local kubeconfig names its CA file');
    const local: Omit<FakeCluster, 'status'> = {
      endpoint: new URL(server.server).host,
      caData: readFileSync(server.caFile).toString('base64'),
    };

    // The clouds. `prod` is someone's running cluster, reachable with the token the cloud hands out:
    // adopting it would connect. `theirs` was made by the operator for another BurstTarget.
    const gkeClusters = new Map<string, FakeCluster>([
      ['prod', { status: 'RUNNING', ...local, marks: { team: 'payments' } }],
      [
        'theirs',
        { status: 'RUNNING', ...local, marks: { 'managed-by': 'flux-operator', [OWNER_UID_KEY]: OTHER_UID } },
      ],
    ]);
    const gke = fakeGke(gkeClusters, {
      accessToken: await burstToken(clients, namespace),
      created: () => ({ status: 'RUNNING', ...local }),
    });
    const eksClusters = new Map<string, FakeCluster>([
      [
        'prod',
        {
          status: 'ACTIVE',
          endpoint: 'https://prod.eks.example',
          caData: local.caData,
          marks: { team: 'payments' },
        },
      ],
    ]);
    const eks = fakeEks(eksClusters);
    await clients.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'gcp' }, stringData: { 'credentials.json': serviceAccountJson() } },
    });
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'aws' },
        stringData: {
          AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
          AWS_SECRET_ACCESS_KEY: 'ownership-test-secret',
        },
      },
    });

    const installs: string[] = [];
    const operatorApi = apiClientsFor(kc);
    const startController = () => {
      const connectors = providerConnectors({
        readSecret: (ns, name) => readSecret({ core: operatorApi.core }, name, ns),
        providerOptions: { gke: { fetch: gke.fetch }, eks: { requestHandler: eks.handler } },
        installOperator: (_config, target) => {
          installs.push(target.metadata.name);
          return Promise.resolve();
        },
      });
      return new BurstTargetController({
        clients: operatorApi,
        log: createLogger({ level: 'warn' }),
        namespaces: [namespace],
        schedule: { recheckMs: 2_000, initialBackoffMs: 200, maxBackoffMs: 1_000 },
        connectTimeoutMs: 5_000,
        providers: { gke: connectors.gke, eks: connectors.eks },
        deleteProvisioned: connectors.deleteProvisioned,
      });
    };
    controller = startController();
    await controller.start();

    const gkeSpec = (clusterName: string) => ({
      provider: 'gke',
      gke: {
        project: PROJECT,
        location: LOCATION,
        clusterName,
        machineType: 'e2-standard-8',
        credentialsSecret: 'gcp',
      },
    });
    await createBurstTarget(clients, namespace, 'takeover', gkeSpec('prod'));
    await createBurstTarget(clients, namespace, 'other', gkeSpec('theirs'));
    await createBurstTarget(clients, namespace, 'mine', gkeSpec('fresh'));
    await createBurstTarget(clients, namespace, 'takeover-eks', {
      provider: 'eks',
      eks: {
        region: REGION,
        clusterName: 'prod',
        roleArn: 'arn:aws:iam::111122223333:role/flux-burst-cluster',
        nodeRoleArn: 'arn:aws:iam::111122223333:role/flux-burst-nodes',
        subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
        instanceType: 'c6i.2xlarge',
        credentialsSecret: 'aws',
      },
    });

    const refused = async (name: string, source: string, why: RegExp) => {
      const condition = await waitFor(
        async () => {
          const c = connected(await read(clients, namespace, name));
          return c?.reason === 'ClusterNotOwned' ? c : false;
        },
        { what: `${name} Connected=False (ClusterNotOwned)` },
      );
      assert.equal(condition.status, 'False');
      assert.ok(condition.message.startsWith(`${source} is not this BurstTarget's: `), condition.message);
      assert.match(condition.message, why);
      assert.match(condition.message, /use a BurstTarget with provider: kubeconfig/);
    };
    await refused(
      'takeover',
      `GKE cluster ${PROJECT}/${LOCATION}/prod`,
      /has no label flux-operator-burst-target-uid/,
    );
    await refused(
      'other',
      `GKE cluster ${PROJECT}/${LOCATION}/theirs`,
      new RegExp(`made for another BurstTarget \\(its label ${OWNER_UID_KEY} is ${OTHER_UID}`),
    );
    await refused('takeover-eks', `EKS cluster ${REGION}/prod`, /has no tag flux-operator-burst-target-uid/);

    // Its own cluster: created, labelled with its uid, then connected (the operator installed there).
    const mine = await waitFor(
      async () => {
        const live = await read(clients, namespace, 'mine');
        return connected(live)?.status === 'True' ? live : false;
      },
      { what: 'mine Connected=True', timeoutMs: 60_000 },
    );
    const uid = mine?.metadata.uid;
    assert.ok(uid);
    assert.equal(gkeClusters.get('fresh')?.marks?.[OWNER_UID_KEY], uid, 'the cluster carries its uid');
    assert.deepEqual(installs, ['mine'], 'installed only into its own cluster');

    // The operator restarts: nothing remembered but what the cloud and the API server hold.
    await controller.stop();
    installs.length = 0;
    const restarted = startController();
    controller = restarted;
    await restarted.start();
    await waitFor(() => installs.includes('mine') && restarted.clientsFor(namespace, 'mine') !== undefined, {
      what: 'mine adopted again after the restart',
      timeoutMs: 60_000,
    });
    await refused('takeover', `GKE cluster ${PROJECT}/${LOCATION}/prod`, /has no label/);
    assert.deepEqual(installs, ['mine']);
    assert.equal(restarted.clientsFor(namespace, 'takeover'), undefined);

    // Every BurstTarget deleted: each goes (its finalizer released), only the own cluster with it.
    for (const name of TARGETS) {
      const finalizers = (await read(clients, namespace, name))?.metadata.finalizers;
      assert.ok(finalizers?.includes(PROVISIONED_CLUSTER_FINALIZER), `${name} holds its deletion`);
    }
    await deleteTargets(clients, namespace);
    assert.deepEqual([...gkeClusters.keys()].sort(), ['prod', 'theirs'], 'fresh deleted, the others kept');
    assert.deepEqual([...eksClusters.keys()], ['prod']);
    const writes = (calls: readonly { method: string; path: string }[]) =>
      calls
        .filter((c) => c.method !== 'GET' && !c.path.endsWith('/token'))
        .map((c) => `${c.method} ${c.path}`);
    assert.deepEqual(writes(gke.calls), [
      `POST /v1/projects/${PROJECT}/locations/${LOCATION}/clusters`,
      `DELETE /v1/projects/${PROJECT}/locations/${LOCATION}/clusters/fresh`,
    ]);
    assert.deepEqual(writes(eks.calls), [], 'nothing but reads on EKS');
  });
});
