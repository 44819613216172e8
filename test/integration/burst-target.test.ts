// BurstTargets on two local control planes: the operator (in-process, on the default cluster) connects
// to the second cluster through a kubeconfig Secret, and reports bad credentials and a missing Secret
// with clear conditions, then reconnects once the Secret appears.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import {
  BURST_TARGET_CRD_NAME,
  BURST_TARGET_PLURAL,
  GROUP,
  VERSION,
  burstTargetCrd,
  type BurstTargetStatus,
} from '../../src/api/index.ts';
import { serverSideApply } from '../../src/controller/apply.ts';
import { BurstTargetController } from '../../src/controller/burst-target-controller.ts';
import { kubeClients, type KubeClients } from '../../src/controller/kube-clients.ts';
import { up } from '../../src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { cluster, httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';

const MANAGER = 'flux-operator-tests';
const BOGUS_TOKEN = 'bogus-token-0123456789';

async function installBurstTargetCrd(clients: KubeClients): Promise<void> {
  await serverSideApply(clients.objects, burstTargetCrd() as never, MANAGER);
  await waitFor(
    async () => {
      const crd = (await clients.objects.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: BURST_TARGET_CRD_NAME },
      })) as { status?: { conditions?: { type: string; status: string }[] } };
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
      await clients.custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: BURST_TARGET_PLURAL,
      });
      return true;
    },
    { what: 'the BurstTarget CRD to be established' },
  );
}

/** The second cluster's kubeconfig with everything inline (as a Secret must hold it), and a user. */
function inlineKubeconfig(
  file: string,
  user: Record<string, string> | 'files',
): { text: string; server: string } {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  const current = kc.getCurrentCluster();
  const currentUser = kc.getCurrentUser();
  assert.ok(current?.caFile && currentUser?.certFile && currentUser.keyFile, 'kwokctl writes file paths');
  const base64 = (path: string) => readFileSync(path).toString('base64');
  const credentials =
    user === 'files'
      ? {
          'client-certificate-data': base64(currentUser.certFile),
          'client-key-data': base64(currentUser.keyFile),
        }
      : user;
  const text = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'second',
    clusters: [
      {
        name: 'second',
        cluster: { server: current.server, 'certificate-authority-data': base64(current.caFile) },
      },
    ],
    contexts: [{ name: 'second', context: { cluster: 'second', user: 'burst' } }],
    users: [{ name: 'burst', user: credentials }],
  });
  return { text, server: current.server };
}

async function createSecret(
  clients: KubeClients,
  namespace: string,
  name: string,
  text: string,
): Promise<void> {
  await clients.core.createNamespacedSecret({
    namespace,
    body: { metadata: { name, namespace }, stringData: { kubeconfig: text } },
  });
}

async function createTarget(
  clients: KubeClients,
  namespace: string,
  name: string,
  secretName: string,
): Promise<void> {
  await clients.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: BURST_TARGET_PLURAL,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'BurstTarget',
      metadata: { name, namespace },
      spec: { provider: 'kubeconfig', kubeconfig: { secretName } },
    },
  });
}

async function statusOf(clients: KubeClients, namespace: string, name: string): Promise<BurstTargetStatus> {
  const object = (await clients.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: BURST_TARGET_PLURAL,
    name,
  })) as { status?: BurstTargetStatus };
  return object.status ?? {};
}

async function waitConnected(
  clients: KubeClients,
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
    const clients = kubeClients(first.kc);
    await installBurstTargetCrd(clients);
    const namespace = await withNamespace(t, 'bt');

    const good = inlineKubeconfig(second.kubeconfig, 'files');
    const bad = inlineKubeconfig(second.kubeconfig, { token: BOGUS_TOKEN });
    assert.notEqual(good.server, first.kc.getCurrentCluster()?.server, 'two different API servers');
    const secondConfig = new KubeConfig();
    secondConfig.loadFromFile(second.kubeconfig);
    const secondVersion = (await secondConfig.makeApiClient(VersionApi).getCode()).gitVersion;

    // The API server itself refuses a kubeconfig target without its Secret (CEL).
    await assert.rejects(
      clients.custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: BURST_TARGET_PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'BurstTarget',
          metadata: { name: 'none' },
          spec: { provider: 'kubeconfig' },
        },
      }),
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
      clients,
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
    assert.equal(targetClients.config.getCurrentCluster()?.server, good.server);
    // They really talk to the second cluster: its namespace list lacks the test namespace of the first.
    const secondNamespaces = await targetClients.core.listNamespace();
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
