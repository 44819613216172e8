// The operator as users install it, running on the real node from its own image: installed by
// `flux-operator install --with-deployment` and by `helm install`, each put on the real node the way a
// user would put it on a node pool (a node selector and a toleration). Each install gets the same
// scenarios: its pods become Ready through their own probes; a MiniCluster with a command succeeds with
// the command's real output; /metrics read through the pod's port (HTTPS, a bearer token allowed to
// get /metrics; none, an unknown one and one without the role refused) shows the reconcile counter moving;
// of two replicas exactly one holds the Lease, and when its pod is deleted the other takes over within
// the lease duration and reconciles a MiniCluster created meanwhile, with no duplicate objects, while
// conversions sent in a loop through the webhook's Service never fail; a burstable job bursts (one
// install path); and the operator's logs over the whole run hold no 403. The installs leave the shared
// CRD's conversion webhook where it points (--leave-crd-conversion: the tests' shared webhook, see
// test/harness/conversion-webhook.ts), which the scenarios check too: a test install that took it
// would take it away from every other test when its pods go.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { stringify } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';
import {
  CRD_NAME,
  GROUP,
  PLURAL,
  VERSION_V1ALPHA1,
  type ConversionClientConfig,
  type MiniClusterStatus,
} from '../../../src/api/index.ts';
import { apiClientsFor } from '../../../src/kube/clients.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { WEBHOOK_CERT_SECRET } from '../../../src/deploy/index.ts';
import { webhookReach } from '../../../src/controllers/conversion/service-probe.ts';
import { convertInLoop } from '../../harness/conversion-loop.ts';
import { ensureConversionWebhook } from '../../harness/conversion-webhook.ts';
import {
  REAL_NODE_KEY,
  REAL_NODE_NAME,
  REAL_NODE_VALUE,
} from '../../../workbench/src/localcluster/real-node/config.ts';
import { cluster, deleteNamespace, waitFor, withNamespace } from '../../harness/cluster.ts';
import {
  OPERATOR_IMAGE,
  counterSum,
  deploymentPods,
  fluxOperatorCli,
  leaseHolder,
  readyPods,
  metricsToken,
  scrape,
} from '../../harness/installed-operator.ts';
import { applyMiniCluster, installCrd, waitForCondition } from '../../harness/operator.ts';
import {
  burstableMiniCluster,
  leadLog,
  realMiniCluster,
  runBurstableHostnames,
} from '../../harness/real-node.ts';

const LEASE_DURATION_MS = 15_000;
const PLACEMENT_SELECTOR = `${REAL_NODE_KEY}=${REAL_NODE_VALUE}`;
const PLACEMENT_TOLERATION = `${REAL_NODE_KEY}=${REAL_NODE_VALUE}:NoSchedule`;

interface Installed {
  /** The operator's namespace and Deployment. */
  readonly namespace: string;
  readonly deployment: string;
  /** The namespace it watches, where the scenarios put their MiniClusters. */
  readonly watched: string;
  /** The Service in front of its conversion webhook. */
  readonly webhookService: string;
}

/**
 * The install's conversion webhook answers through its Service, as the API server reaches it: at the
 * ClusterIP, TLS verified for the Service's DNS name against the CA in the install's Secret. Returns
 * that CA (PEM).
 */
async function webhookAnswersThroughService(clients: ApiClients, installed: Installed): Promise<string> {
  const { transport } = clients;
  return waitFor(
    async () => {
      const secret = await clients.core.readNamespacedSecret({
        name: WEBHOOK_CERT_SECRET,
        namespace: installed.namespace,
      });
      const caBundle = secret.data?.['ca.crt'];
      if (!caBundle) return undefined;
      const config = {
        service: {
          namespace: installed.namespace,
          name: installed.webhookService,
          path: '/convert',
          port: 443,
        },
        caBundle,
      };
      return (await webhookReach(transport, config)).ok
        ? Buffer.from(caBundle, 'base64').toString('utf8')
        : undefined;
    },
    {
      what: `the conversion webhook behind ${installed.namespace}/${installed.webhookService}`,
      timeoutMs: 60_000,
    },
  );
}

/** Where the shared CRD sends conversions (JSON, for comparing). */
async function crdClientConfig(clients: ApiClients): Promise<ConversionClientConfig | undefined> {
  const crd = (await clients.objects.read({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
  })) as { spec?: { conversion?: { webhook?: { clientConfig?: ConversionClientConfig } } } };
  const config = crd.spec?.conversion?.webhook?.clientConfig;
  return config === undefined ? undefined : (JSON.parse(JSON.stringify(config)) as ConversionClientConfig);
}

/** Every line every operator pod printed, kept as pods come and go (the deleted leader's too). */
async function collectLogs(clients: ApiClients, installed: Installed, into: Map<string, string>) {
  for (const pod of await deploymentPods(clients, installed.namespace, installed.deployment)) {
    const name = pod.metadata?.name ?? '';
    try {
      into.set(name, await clients.core.readNamespacedPodLog({ name, namespace: installed.namespace }));
    } catch {
      // not started yet
    }
  }
}

async function ownedObjects(clients: ApiClients, namespace: string, miniCluster: string) {
  const selector = { namespace, labelSelector: `flux-framework.org/minicluster=${miniCluster}` };
  const [jobs, services, configMaps, secrets] = await Promise.all([
    clients.batch.listNamespacedJob(selector),
    clients.core.listNamespacedService(selector),
    clients.core.listNamespacedConfigMap(selector),
    clients.core.listNamespacedSecret(selector),
  ]);
  return [jobs, services, configMaps, secrets].map((list) =>
    list.items.map((item) => item.metadata?.name ?? '').sort(),
  );
}

/** The scenarios every install path goes through; the install has two replicas. */
async function exercise(
  clients: ApiClients,
  installed: Installed,
  options: { burst?: boolean } = {},
): Promise<void> {
  const { namespace, deployment, watched } = installed;
  const logs = new Map<string, string>();
  const pods = await readyPods(clients, namespace, deployment, 2);
  for (const pod of pods)
    assert.equal(pod.spec?.nodeName, REAL_NODE_NAME, 'the operator runs on the real node');
  const ca = await webhookAnswersThroughService(clients, installed);
  // Its webhook answers, yet the shared CRD still sends conversions to the tests' webhook.
  assert.deepEqual(
    await crdClientConfig(clients),
    await ensureConversionWebhook((await cluster()).kubeconfig),
    'the install left the CRD to the tests’ webhook',
  );

  // Exactly one leads: the Lease names it, and only it reconciles.
  const holder = await waitFor(() => leaseHolder(clients, namespace), { what: 'a Lease holder' });
  const leader = pods.find((pod) => holder.startsWith(`${pod.metadata?.name ?? '?'}-`));
  assert.ok(leader, `the Lease holder ${holder} is one of the pods`);
  const standby = pods.find((pod) => pod !== leader);
  assert.ok(standby);

  // /metrics (HTTPS) answers only a token the API server vouches for and allows to get /metrics.
  const reader = await metricsToken(clients, namespace, 'prometheus', true);
  const stranger = await metricsToken(clients, namespace, 'stranger', false);
  await assert.rejects(scrape(leader), /HTTP 401/, 'no token');
  await assert.rejects(scrape(leader, 'not-a-token'), /HTTP 401/, 'a token the API server does not know');
  await assert.rejects(scrape(leader, stranger.token), /HTTP 403/, 'a token without the metrics-reader role');
  // The binding is seen by the authorizer a moment after it is made.
  const scraped = (pod: V1Pod) =>
    waitFor(() => scrape(pod, reader.token).catch(() => undefined), {
      what: `/metrics of ${pod.metadata?.name ?? '?'} with the reader's token`,
      timeoutMs: 30_000,
    });
  const before = counterSum(await scraped(leader), 'controller_runtime_reconcile_total', {
    controller: 'minicluster',
  });
  await applyMiniCluster(
    clients,
    realMiniCluster(
      watched,
      'hello',
      { size: 2 },
      { command: 'echo hello from $(flux getattr size) brokers' },
    ),
  );
  await waitForCondition(clients, watched, 'hello', 'Succeeded', 'True', 180_000);
  assert.match(await leadLog(clients, watched, 'hello'), /^hello from 2 brokers$/m);
  const after = counterSum(await scraped(leader), 'controller_runtime_reconcile_total', {
    controller: 'minicluster',
  });
  assert.ok(after > before, `the reconcile counter moved: ${before} -> ${after}`);
  assert.equal(
    counterSum(await scraped(standby), 'controller_runtime_reconcile_total', { controller: 'minicluster' }),
    0,
    'the standby reconciled nothing',
  );

  if (options.burst) {
    // Bursting's requests (exec into the lead broker, Secrets copied, a MiniCluster made, events)
    // under the installed RBAC: a burstable job that needs twice the local brokers.
    const lead = await burstableMiniCluster(clients, watched, 'bursty');
    assert.deepEqual(await runBurstableHostnames(watched, lead), [
      'burst-0-0',
      'burst-0-1',
      'bursty-0',
      'bursty-1',
    ]);
  }

  // The leader goes; a MiniCluster made meanwhile is reconciled by the other, once. Conversions
  // through the Service go on all along: the standby answers, the going pod drains.
  await collectLogs(clients, installed, logs);
  const conversions = await convertInLoop(
    clients,
    { namespace, name: installed.webhookService },
    ca,
    realMiniCluster(watched, 'converted', { size: 2 }, { command: 'hostname' }),
  );
  const deletedAt = Date.now();
  await clients.core.deleteNamespacedPod({
    name: leader.metadata?.name ?? '',
    namespace,
  });
  await applyMiniCluster(clients, realMiniCluster(watched, 'meanwhile', { size: 2, interactive: true }));
  // The standby normally wins; the Deployment's replacement pod may, if it starts first.
  const newHolder = await waitFor(
    async () => {
      const current = await leaseHolder(clients, namespace);
      return current && !current.startsWith(`${leader.metadata?.name ?? '?'}-`) ? current : undefined;
    },
    { what: 'another pod to take the Lease', timeoutMs: LEASE_DURATION_MS + 15_000, intervalMs: 250 },
  );
  const tookOverMs = Date.now() - deletedAt;
  const byStandby = newHolder.startsWith(`${standby.metadata?.name ?? '?'}-`);
  process.stderr.write(
    `[installed operator] ${newHolder} (${byStandby ? 'the standby' : 'a new pod'}) took over ` +
      `${tookOverMs} ms after the leader's deletion\n`,
  );
  assert.ok(tookOverMs <= LEASE_DURATION_MS + 5_000, `took over in ${tookOverMs} ms`);
  await waitForCondition(clients, watched, 'meanwhile', 'Ready', 'True', 120_000);
  // The deleted pod gone and its replacement Ready: both pods answer again.
  await waitFor(
    async () =>
      !(await deploymentPods(clients, namespace, deployment)).some(
        (pod) => pod.metadata?.name === leader.metadata?.name,
      ) || undefined,
    { what: `pod ${leader.metadata?.name ?? '?'} to be gone`, timeoutMs: 60_000 },
  );
  await readyPods(clients, namespace, deployment, 2);
  const { answered, slowest, failures } = await conversions.stop();
  process.stderr.write(
    `[installed operator] ${answered} conversions through ${namespace}/${installed.webhookService} ` +
      `over the ${((Date.now() - deletedAt) / 1000).toFixed(1)} s of the failover, ${failures.length} failed; ` +
      `the slowest answered in ${slowest.ms} ms (sent at ${slowest.sentAt})\n`,
  );
  assert.deepEqual(failures, [], 'no conversion failed while the leader pod went');
  assert.ok(answered > 20, `conversions answered all along (${answered})`);
  const left = [...logs.values()].join('\n');
  assert.match(left, /leaving the miniclusters\.flux-framework\.org conversion webhook as it is/);
  assert.deepEqual(
    await crdClientConfig(clients),
    await ensureConversionWebhook((await cluster()).kubeconfig),
    'the CRD still sends conversions to the tests’ webhook',
  );
  assert.deepEqual(
    await ownedObjects(clients, watched, 'meanwhile'),
    [
      ['meanwhile'],
      ['meanwhile'],
      ['meanwhile-flux-config'],
      ['meanwhile-curve-cert', 'meanwhile-munge-key'],
    ],
    'each object once',
  );

  await collectLogs(clients, installed, logs);
  const forbidden = [...logs.entries()].flatMap(([pod, text]) =>
    text
      .split('\n')
      .filter((line) => /\b403\b|forbidden/i.test(line))
      .map((line) => `${pod}: ${line}`),
  );
  assert.deepEqual(forbidden, [], 'the RBAC is enough for every request the operator made');
  // Refusals a pass reports in status rather than in a log line (an exec refused, say).
  const listed = (await clients.custom.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    plural: PLURAL,
    namespace: watched,
  })) as { items: { metadata: { name: string }; status?: MiniClusterStatus }[] };
  const refusedInStatus = listed.items.flatMap((mc) =>
    (mc.status?.conditions ?? [])
      .filter((condition) => /\b403\b|forbidden/i.test(condition.message ?? ''))
      .map((condition) => `${mc.metadata.name} ${condition.type}: ${condition.message ?? ''}`),
  );
  assert.deepEqual(refusedInStatus, [], 'no condition reports a refused request');
  await reader.cleanUp();
}

/**
 * The admin's clients, once the tests' CRD is in place with its conversions sent to the tests' shared
 * webhook: an install keeps the webhook a CRD has, but gives one that has none its own Service, which
 * would go with the install's namespace (and every MiniCluster request of every test with it).
 */
async function adminClients(): Promise<{ kubeconfig: string; clients: ApiClients }> {
  await installCrd();
  const { kubeconfig, kc } = await cluster();
  return { kubeconfig, clients: apiClientsFor(kc) };
}

/** A namespace name no other run uses (the operator's own namespace, outside withNamespace's). */
function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid.toString(36)}-${Date.now().toString(36).slice(-5)}`;
}

function helmBinary(): string {
  return execFileSync('bash', [path.join(REPOSITORY_ROOT, 'hack/build-helm.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export function installedOperatorScenarios(): void {
  it('installed by `flux-operator install --with-deployment`, on the real node from its image', async (t) => {
    const { kubeconfig, clients } = await adminClients();
    const watched = await withNamespace(t, 'cli-mc');
    const namespace = uniqueName('fo-cli');
    t.after(async () => {
      await deleteNamespace(namespace, 90_000);
      // Watching a namespace, the install's cluster-wide part is a ClusterRole and binding of its own.
      for (const kind of ['ClusterRoleBinding', 'ClusterRole']) {
        await clients.objects
          .delete({
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind,
            metadata: { name: `flux-operator-cluster-${namespace}` },
          })
          .catch(() => undefined);
      }
    });
    const installed = await fluxOperatorCli([
      'install',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      namespace,
      '--with-deployment',
      '--image',
      OPERATOR_IMAGE,
      '--replicas',
      '2',
      '--watch-namespace',
      watched,
      '--node-selector',
      PLACEMENT_SELECTOR,
      '--toleration',
      PLACEMENT_TOLERATION,
      // The CRD is every test's: its conversions stay with the tests' webhook.
      '--leave-crd-conversion',
    ]);
    assert.equal(installed.code, 0, installed.stderr);
    // The install returned once the operator it installed was Ready, and said so.
    assert.match(
      installed.stdout,
      /^deployment\.apps\/flux-operator ready: a pod of it is Ready \(waited [\d.]+ s\)$/m,
    );
    // One path bursts too: the RBAC is generated from one source for every install path.
    await exercise(
      clients,
      { namespace, deployment: 'flux-operator', watched, webhookService: 'flux-operator-webhook' },
      { burst: true },
    );
  });

  it('installed by `helm install` of the chart, on the real node from its image', async (t) => {
    const { kubeconfig, clients } = await adminClients();
    const watched = await withNamespace(t, 'helm-mc');
    const namespace = uniqueName('fo-helm');
    // Its own release name too: the chart's cluster-scoped objects are named after it.
    const release = namespace.replace(/^fo-helm-/, 'fo-');
    const helm = helmBinary();
    const values = path.join(mkdtempSync(path.join(tmpdir(), 'helm-values-')), 'values.yaml');
    const [repository, tag] = OPERATOR_IMAGE.split(/:(?=[^:]+$)/);
    writeFileSync(
      values,
      stringify({
        image: { repository, tag, pullPolicy: 'Never' },
        replicas: 2,
        watchNamespaces: [watched],
        nodeSelector: { [REAL_NODE_KEY]: REAL_NODE_VALUE },
        tolerations: [
          { key: REAL_NODE_KEY, operator: 'Equal', value: REAL_NODE_VALUE, effect: 'NoSchedule' },
        ],
        leaveCrdConversion: true,
      }),
    );
    const helmRun = (args: string[]) =>
      execFileSync(helm, [...args, '--kubeconfig', kubeconfig], { encoding: 'utf8', stdio: 'pipe' });
    t.after(async () => {
      try {
        helmRun(['uninstall', release, '--namespace', namespace, '--wait']);
      } catch {
        // never installed
      }
      await deleteNamespace(namespace, 90_000);
    });
    helmRun([
      'install',
      release,
      path.join(REPOSITORY_ROOT, 'deploy/helm/flux-operator'),
      '--namespace',
      namespace,
      '--create-namespace',
      '--values',
      values,
    ]);
    await exercise(clients, {
      namespace,
      deployment: `${release}-flux-operator`,
      watched,
      webhookService: `${release}-flux-operator-webhook`,
    });
  });

  it('an install without the right to create the CRD fails in one line naming it, and a second run with it succeeds', async (t) => {
    const { kubeconfig, clients } = await adminClients();
    const home = await withNamespace(t, 'limited');
    const namespace = uniqueName('fo-limited');
    t.after(() => deleteNamespace(namespace, 90_000));
    // A user who may manage namespaces but not CustomResourceDefinitions or ClusterRoles.
    const role = `limited-installer-${home}`;
    await clients.core.createNamespacedServiceAccount({
      namespace: home,
      body: { metadata: { name: 'installer' } },
    });
    for (const object of [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'create', 'patch'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: home }],
      },
    ]) {
      await clients.objects.create(object as never);
      t.after(() => clients.objects.delete(object as never).catch(() => undefined));
    }
    const token = await clients.core.createNamespacedServiceAccountToken({
      name: 'installer',
      namespace: home,
      body: { spec: { expirationSeconds: 600 } },
    });
    const admin = (await cluster()).kc;
    const server = admin.getCurrentCluster();
    assert.ok(server);
    const limited = path.join(mkdtempSync(path.join(tmpdir(), 'limited-')), 'kubeconfig');
    writeFileSync(
      limited,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'local',
            cluster: {
              server: server.server,
              ...(server.caData ? { 'certificate-authority-data': server.caData } : {}),
              ...(server.caFile ? { 'certificate-authority': server.caFile } : {}),
            },
          },
        ],
        users: [{ name: 'installer', user: { token: token.status?.token } }],
        contexts: [{ name: 'limited', context: { cluster: 'local', user: 'installer' } }],
        'current-context': 'limited',
      }),
    );

    const refused = await fluxOperatorCli(['install', '--kubeconfig', limited, '--namespace', namespace]);
    assert.notEqual(refused.code, 0);
    const lines = refused.stderr.trim().split('\n');
    assert.equal(lines.length, 1, refused.stderr);
    assert.match(
      lines[0] ?? '',
      /^error: applying customresourcedefinition\.apiextensions\.k8s\.io\/miniclusters\.flux-framework\.org: forbidden .*cannot \w+ resource "customresourcedefinitions"/,
    );
    const second = await fluxOperatorCli(['install', '--kubeconfig', kubeconfig, '--namespace', namespace]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /miniclusters\.flux-framework\.org established/);
  });
}
