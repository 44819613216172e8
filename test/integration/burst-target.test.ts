// BurstTargets on two local control planes: the operator (in-process, on the default cluster) connects
// to the second cluster through a kubeconfig Secret, and reports bad credentials and a missing Secret
// with clear conditions, then reconnects once the Secret appears.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { V1Deployment, VersionInfo } from '@kubernetes/client-node';
import { BURST_TARGET_PLURAL, GROUP, VERSION_V1ALPHA1, type BurstTargetStatus } from '../../src/api/index.ts';
import { installOperatorObjects } from '../../src/burst/install-operator.ts';
import { servesMiniClusters } from '../../src/burst/target-connection.ts';
import { OPERATOR_NAME, OPERATOR_NAMESPACE } from '../../src/deploy/index.ts';
import { BurstTargetController } from '../../src/controllers/burst-target/burst-target-controller.ts';
import { deleteCustomObject } from '../../src/kube/custom-objects.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { down, up } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { cluster, httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';
import {
  createBurstTarget,
  createSecret,
  createTarget,
  inlineKubeconfig,
  installBurstTargetCrd,
  installMiniClusterCrd,
  readBurstTarget,
} from '../harness/burst-target.ts';

const BOGUS_TOKEN = 'bogus-token-0123456789';

async function statusOf(clients: ApiClients, namespace: string, name: string): Promise<BurstTargetStatus> {
  return (await readBurstTarget(clients, namespace, name)).status ?? {};
}

async function waitConnected(
  clients: ApiClients,
  namespace: string,
  name: string,
  wanted: { status: 'True' | 'False'; reason: string },
  timeoutMs = 30_000,
) {
  return waitFor(
    async () => {
      const status = await statusOf(clients, namespace, name);
      const condition = status.conditions?.find((c) => c.type === 'Connected');
      return condition?.status === wanted.status && condition.reason === wanted.reason
        ? { status, condition }
        : false;
    },
    { what: `${namespace}/${name} Connected=${wanted.status} (${wanted.reason})`, timeoutMs },
  );
}

describe('BurstTarget on two local control planes', () => {
  it('connects with a kubeconfig Secret, reports bad credentials and a missing Secret, reconnects', async (t) => {
    const first = await cluster();
    const second = await up({
      name: 'second',
      progress: (line) => process.stderr.write(`[second] ${line}\n`),
    });
    const clients = apiClientsFor(first.kc);
    await installBurstTargetCrd(clients);
    // The operator's resource is served there (else the target is OperatorMissing; see below).
    const secondClients = apiClientsFor(loadKubeConfig(second.kubeconfig));
    await installMiniClusterCrd(secondClients, second.kubeconfig);
    const namespace = await withNamespace(t, 'bt');

    const good = inlineKubeconfig(second.kubeconfig, 'files');
    const bad = inlineKubeconfig(second.kubeconfig, { token: BOGUS_TOKEN });
    assert.notEqual(good.server, first.kc.getCurrentCluster()?.server, 'two different API servers');
    const secondVersion = (await secondClients.transport.request<VersionInfo>('GET', '/version')).gitVersion;

    // The API server itself refuses a kubeconfig target without its Secret (CEL).
    await assert.rejects(
      createBurstTarget(clients, namespace, 'none', { provider: 'kubeconfig' }),
      (error: unknown) => {
        assert.equal(httpStatus(error), 422);
        assert.match(
          String((error as { body?: unknown }).body),
          /spec\.kubeconfig is required when provider is kubeconfig/,
        );
        return true;
      },
    );

    const logLines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    const controller = new BurstTargetController({
      clients: apiClientsFor(first.kc),
      log: createLogger({ level: 'debug', destination: sink }),
      namespaces: [namespace],
      schedule: { recheckMs: 5_000, initialBackoffMs: 500, maxBackoffMs: 2_000 },
      connectTimeoutMs: 5_000,
    });
    await controller.start();
    t.after(() => controller.stop());

    await createSecret(clients, namespace, 'good-kubeconfig', good.text);
    await createSecret(clients, namespace, 'bad-kubeconfig', bad.text);
    await createTarget(clients, namespace, 'good', 'good-kubeconfig');
    await createTarget(clients, namespace, 'bad', 'bad-kubeconfig');
    await createTarget(clients, namespace, 'late', 'late-kubeconfig');

    // Good credentials: connected to the second cluster, with its server and version.
    const connected = await waitConnected(clients, namespace, 'good', {
      status: 'True',
      reason: 'Connected',
    });
    assert.equal(connected.status.server, good.server);
    assert.equal(connected.status.kubernetesVersion, secondVersion);
    assert.ok(connected.status.lastConnectedTime);
    assert.match(
      connected.condition.message,
      new RegExp(
        `connected to ${good.server.replaceAll('.', '\\.')} \\(Kubernetes ${secondVersion.replaceAll('.', '\\.')}\\)`,
      ),
    );
    const targetClients = controller.clientsFor(namespace, 'good');
    assert.ok(targetClients, 'clientsFor gives the connected target clients');
    assert.equal(targetClients.transport.access.server, good.server);
    // They really talk to the second cluster: its namespace list lacks the test namespace of the first.
    const secondNamespaces = await targetClients.list('/api/v1/namespaces');
    assert.ok(!secondNamespaces.items.some((item) => item.metadata?.name === namespace));

    // A bogus token: the second API server answers 401, the condition says so without the token.
    const rejected = await waitConnected(clients, namespace, 'bad', {
      status: 'False',
      reason: 'Unauthorized',
    });
    assert.match(
      rejected.condition.message,
      new RegExp(
        `the API server ${good.server.replaceAll('.', '\\.')} rejected the credentials of user "burst" in Secret ${namespace}/bad-kubeconfig key kubeconfig \\(HTTP 401 Unauthorized\\)`,
      ),
    );
    assert.ok(!rejected.condition.message.includes(BOGUS_TOKEN));
    assert.equal(controller.clientsFor(namespace, 'bad'), undefined);
    assert.equal(rejected.status.server, undefined, 'never reached');

    // A missing Secret, then the Secret: reconnects on its own (backoff), no change to the target.
    const waiting = await waitConnected(clients, namespace, 'late', {
      status: 'False',
      reason: 'SecretMissing',
    });
    assert.match(
      waiting.condition.message,
      new RegExp(`Secret ${namespace}/late-kubeconfig \\(spec\\.kubeconfig\\.secretName\\) does not exist`),
    );
    assert.equal(controller.clientsFor(namespace, 'late'), undefined);
    await createSecret(clients, namespace, 'late-kubeconfig', good.text);
    const late = await waitConnected(clients, namespace, 'late', { status: 'True', reason: 'Connected' });
    assert.equal(late.status.server, good.server);
    assert.ok(controller.clientsFor(namespace, 'late'));
    assert.ok(
      late.condition.lastTransitionTime >= waiting.condition.lastTransitionTime,
      'the transition time moved forward',
    );

    // Events on the transitions.
    const events = await waitFor(
      async () => {
        const list = await clients.events.listNamespacedEvent({ namespace });
        const seen = list.items.map((event) => `${event.regarding?.name}:${event.type}:${event.reason}`);
        return [
          'good:Normal:Connected',
          'bad:Warning:Unauthorized',
          'late:Warning:SecretMissing',
          'late:Normal:Connected',
        ].every((e) => seen.includes(e))
          ? seen
          : false;
      },
      { what: 'Connected / Unauthorized / SecretMissing events' },
    );
    // One warning for a target failing the same way at every retry.
    assert.equal(events.filter((event) => event === 'bad:Warning:Unauthorized').length, 1);
    assert.ok(!logLines.join('').includes(BOGUS_TOKEN), 'the token never reaches the logs');
  });
});

describe('a kubeconfig BurstTarget to a cluster without the operator', () => {
  it('is OperatorMissing with the fix, and with installOperator installs it there and connects', async (t) => {
    const { kc } = await cluster();
    const clients = apiClientsFor(kc);
    await installBurstTargetCrd(clients);
    const namespace = await withNamespace(t, 'bare');
    // A cluster of its own: once installed, the MiniCluster CRD stays, and `second` has it for bursting.
    const bare = await up({ name: 'bare', progress: (line) => process.stderr.write(`[bare] ${line}\n`) });
    t.after(() => down({ name: 'bare' }).then(() => undefined));
    const bareConfig = loadKubeConfig(bare.kubeconfig);
    assert.equal(await servesMiniClusters(apiClientsFor(bareConfig), 5_000), false);

    // As `flux-operator run` does: the install there runs the operator's own image.
    const image = 'mirror.example.com/flux-operator-ts:test';
    const controller = new BurstTargetController({
      clients: apiClientsFor(kc),
      log: createLogger({ level: 'warn' }),
      namespaces: [namespace],
      schedule: { recheckMs: 5_000, initialBackoffMs: 500, maxBackoffMs: 2_000 },
      connectTimeoutMs: 5_000,
      installOperator: (config) => installOperatorObjects(config, { image }),
    });
    await controller.start();
    t.after(() => controller.stop());
    const kubeconfig = inlineKubeconfig(bare.kubeconfig, 'files');
    await createSecret(clients, namespace, 'bare-kubeconfig', kubeconfig.text);
    await createTarget(clients, namespace, 'bare', 'bare-kubeconfig');

    const missing = await waitConnected(clients, namespace, 'bare', {
      status: 'False',
      reason: 'OperatorMissing',
    });
    assert.equal(
      missing.condition.message,
      `${kubeconfig.server} does not serve flux-framework.org/${VERSION_V1ALPHA1} miniclusters, so nothing there would run burst MiniClusters; install the operator there (flux-operator install --with-deployment --kubeconfig <that cluster's kubeconfig>) or set spec.kubeconfig.installOperator: true`,
    );
    assert.equal(controller.clientsFor(namespace, 'bare'), undefined);

    await clients.custom.patchNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural: BURST_TARGET_PLURAL,
      name: 'bare',
      body: { spec: { kubeconfig: { installOperator: true } } },
    });
    await waitConnected(clients, namespace, 'bare', { status: 'True', reason: 'Connected' }, 60_000);
    assert.equal(await servesMiniClusters(apiClientsFor(bareConfig), 5_000), true);
    const deployment = (await apiClientsFor(bareConfig).objects.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: OPERATOR_NAME, namespace: OPERATOR_NAMESPACE },
    })) as V1Deployment;
    assert.equal(deployment.spec?.template.spec?.serviceAccountName, OPERATOR_NAME);
    assert.equal(deployment.spec?.template.spec?.containers[0]?.image, image);
    assert.ok(controller.clientsFor(namespace, 'bare'));
  });
});

describe('a GKE BurstTarget the operator provisions', () => {
  it('holds its deletion with a finalizer until the cloud cluster is deleted', async (t) => {
    const { kc } = await cluster();
    const clients = apiClientsFor(kc);
    await installBurstTargetCrd(clients);
    const namespace = await withNamespace(t, 'provisioned');
    // The cloud cannot exist here: a double of the provider connector's interface stands for it (the
    // real connector is tested against recorded SDK requests in test/unit/burst/providers).
    const deletions: string[] = [];
    const controller = new BurstTargetController({
      clients: apiClientsFor(kc),
      log: createLogger({ level: 'warn' }),
      namespaces: [namespace],
      schedule: { recheckMs: 5_000, initialBackoffMs: 200, maxBackoffMs: 500 },
      providers: {
        gke: async () => ({
          ok: false,
          reason: 'Provisioning',
          message: 'GKE cluster my-project-1/us-central1-a/burst is PROVISIONING',
        }),
      },
      deleteProvisioned: async (target) => {
        deletions.push(target.metadata.name);
        return {
          ok: true,
          done: deletions.length >= 2,
          message: deletions.length >= 2 ? 'deleted' : 'deleting',
        };
      },
    });
    await controller.start();
    t.after(() => controller.stop());
    await createBurstTarget(clients, namespace, 'cloud', {
      provider: 'gke',
      gke: {
        project: 'my-project-1',
        location: 'us-central1-a',
        clusterName: 'burst',
        machineType: 'e2-standard-8',
      },
    });
    const read = () => readBurstTarget(clients, namespace, 'cloud');
    await waitFor(
      async () => (await read()).metadata.finalizers?.includes('flux-framework.org/provisioned-cluster'),
      {
        what: 'the provisioned-cluster finalizer',
      },
    );
    assert.equal(await deleteCustomObject(clients.custom, BURST_TARGET_PLURAL, namespace, 'cloud'), true);
    await waitFor(
      async () => {
        try {
          await read();
          return false;
        } catch (error) {
          return httpStatus(error) === 404;
        }
      },
      { what: 'the BurstTarget gone once its cluster is deleted' },
    );
    assert.deepEqual(deletions, ['cloud', 'cloud']);
  });
});
