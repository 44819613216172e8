// The conversion webhook against a real API server, on a local cluster of its own (the test points the
// CRD at its own operators, replaces the CRD, stops the webhook: the shared clusters' tests must not
// see that). Every call has a timeout (the harness's waitFor, the transport's).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { stringify } from 'yaml';
import {
  CRD_NAME,
  GROUP,
  PLURAL,
  VERSION_V1ALPHA1,
  miniClusterV1alpha1Crd,
  type ConversionClientConfig,
} from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { Operator } from '../../src/controllers/operator.ts';
import { ConversionWebhook } from '../../src/controllers/conversion/webhook.ts';
import { conversionLine } from '../../src/controllers/conversion/install-conversion.ts';
import { StorageVersionMigration } from '../../src/controllers/storage-migration/migration.ts';
import { V1ALPHA2_RESIDUE_ANNOTATION, convertMiniCluster } from '../../src/api/index.ts';
import {
  OPERATOR_NAME,
  OPERATOR_NAMESPACE,
  OPERATOR_RULES,
  WEBHOOK_CERT_SECRET,
  WEBHOOK_SECRET_RULES,
  policyRule,
} from '../../src/deploy/index.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { binDir, down, readVersions, up } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { waitFor } from '../harness/cluster.ts';
import { spawnOperator } from '../harness/operator-process.ts';
import { applyMiniCluster, miniClusterObject, waitForCondition } from '../harness/operator.ts';

const run = promisify(execFile);
const CLUSTER = 'conversion';
const NAMESPACE = 'conversion-test';
/** A namespace the operators of the first tests do not watch. */
const ELSEWHERE = 'conversion-elsewhere';
const V1ALPHA2 = 'v1alpha2';
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const progress = (line: string) => process.stderr.write(`[${CLUSTER}] ${line}\n`);

let kubeconfig = '';
let clients: ApiClients;
/** This cluster's etcd (plain HTTP on loopback): what the API server stored, as it stored it. */
let etcdPort = 0;

interface Running {
  readonly operator: Operator;
  readonly lines: string[];
  stop(): Promise<void>;
}

function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
}

/**
 * An in-process operator watching NAMESPACE (or `namespaces`; empty: all) that serves the webhook on a
 * free loopback port; its storage-version migration retries within a second.
 */
async function startOperator(
  webhook: Partial<ConstructorParameters<typeof ConversionWebhook>[0]> = {},
  namespaces: readonly string[] = [NAMESPACE],
): Promise<Running> {
  const lines: string[] = [];
  const operator = new Operator({
    clients: apiClientsFor(loadKubeConfig(kubeconfig)),
    log: createLogger({ level: 'debug', destination: lineSink(lines) }),
    namespaces,
    concurrency: 2,
    storageMigration: { retryMs: 500, rewritesPerSecond: 50 },
    conversionWebhook: {
      address: { host: '127.0.0.1', port: 0 },
      secret: { namespace: 'default', name: WEBHOOK_CERT_SECRET },
      syncIntervalMs: 1_000,
      ...webhook,
    },
  });
  await operator.start();
  return { operator, lines, stop: () => operator.stop() };
}

function custom(version: string) {
  return { group: GROUP, version, plural: PLURAL, namespace: NAMESPACE };
}

async function getAs(version: string, name: string): Promise<Record<string, unknown>> {
  return (await clients.custom.getNamespacedCustomObject({ ...custom(version), name })) as Record<
    string,
    unknown
  >;
}

/** The apiVersion a MiniCluster is stored as in etcd (read with etcd's JSON gateway). */
async function storedApiVersion(namespace: string, name: string): Promise<string> {
  const key = Buffer.from(`/registry/${GROUP}/${PLURAL}/${namespace}/${name}`).toString('base64');
  const response = await fetch(`http://127.0.0.1:${etcdPort}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key }),
    signal: AbortSignal.timeout(5_000),
  });
  const { kvs } = (await response.json()) as { kvs?: { value: string }[] };
  const value = kvs?.[0]?.value;
  assert.ok(value, `${namespace}/${name} is in etcd`);
  return (JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as { apiVersion: string }).apiVersion;
}

/**
 * The leaf paths `after` has that `before` has not; fails on any leaf `before` has that `after` changed
 * or dropped.
 */
function addedPaths(before: unknown, after: unknown, at = ''): string[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(before) || !isObject(after)) {
    assert.deepEqual(after, before, `${at || 'the object'} unchanged`);
    return [];
  }
  const added: string[] = [];
  for (const key of Object.keys(after)) {
    const path = at === '' ? key : `${at}.${key}`;
    if (key in before) added.push(...addedPaths(before[key], after[key], path));
    else added.push(path);
  }
  for (const key of Object.keys(before)) assert.ok(key in after, `${at}.${key} kept`);
  return added;
}

async function readCrdStatus(): Promise<{ storedVersions?: string[] }> {
  const crd = (await clients.objects.read({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
  })) as { status?: { storedVersions?: string[] } };
  return crd.status ?? {};
}

/** The log lines of a running operator whose message starts with `prefix`, parsed. */
function logged(lines: readonly string[], prefix: string): Record<string, unknown>[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line['msg'] === 'string' && line['msg'].startsWith(prefix));
}

async function liveClientConfig(): Promise<ConversionClientConfig | undefined> {
  const crd = (await clients.objects.read({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
  })) as { spec?: { conversion?: { webhook?: { clientConfig?: ConversionClientConfig } } } };
  const config = crd.spec?.conversion?.webhook?.clientConfig;
  // The client's models carry every field, unset ones as undefined: compare the JSON.
  return config === undefined ? undefined : (JSON.parse(JSON.stringify(config)) as ConversionClientConfig);
}

async function waitPointedAt(webhook: ConversionWebhook): Promise<void> {
  await waitFor(
    async () => {
      const live = await liveClientConfig();
      return live !== undefined && isDeepStrictEqual(live, webhook.clientConfig());
    },
    { what: 'the CRD to send conversions to the operator', timeoutMs: 20_000 },
  );
  // The API server rebuilds its conversion for the CRD a moment after the change: until then a read
  // may still go to the webhook the CRD named before (a 500 when that one is gone). A list in the
  // version not stored converts whatever MiniClusters there are through the webhook now named.
  await waitFor(
    async () => {
      await clients.custom.listNamespacedCustomObject(custom(VERSION_V1ALPHA1));
      return true;
    },
    { what: 'the API server converting through the webhook the CRD names', timeoutMs: 20_000 },
  );
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(`${binDir(readVersions())}/kubectl`, ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

/** A kubeconfig of a ServiceAccount's token, on this cluster. */
async function serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
  const token = await clients.core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { expirationSeconds: 600 } },
  });
  const server = loadKubeConfig(kubeconfig).getCurrentCluster();
  assert.ok(server);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'sa-')), 'kubeconfig');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'c',
          cluster: {
            server: server.server,
            ...(server.caData ? { 'certificate-authority-data': server.caData } : {}),
            ...(server.caFile ? { 'certificate-authority': server.caFile } : {}),
          },
        },
      ],
      users: [{ name: 'u', user: { token: token.status?.token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return file;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

describe('the conversion webhook on a real API server', { concurrency: 1 }, () => {
  let running: Running | undefined;

  before(async () => {
    const cluster = await up({ name: CLUSTER, progress });
    kubeconfig = cluster.kubeconfig;
    etcdPort = cluster.status.ports['etcdPort'] ?? 0;
    assert.ok(etcdPort > 0, "the cluster's etcd port");
    clients = apiClientsFor(loadKubeConfig(kubeconfig));
    // The CRD as it was before v1alpha2: one version, stored, no conversion.
    await serverSideApply(clients.objects, miniClusterV1alpha1Crd() as never, 'flux-operator-tests');
    await waitFor(
      () => clients.custom.listNamespacedCustomObject(custom(VERSION_V1ALPHA1)).catch(() => undefined),
      {
        what: 'the single-version CRD served',
      },
    );
    for (const name of [NAMESPACE, ELSEWHERE]) {
      await clients.core.createNamespace({ body: { metadata: { name } } }).catch(() => undefined);
    }
    await waitFor(
      () => clients.core.readNamespacedServiceAccount({ name: 'default', namespace: NAMESPACE }),
      {
        what: 'the default ServiceAccount',
      },
    );
  });

  after(async () => {
    await running?.stop();
    await down({ name: CLUSTER, progress });
  });

  it('keeps objects written through the old single-version CRD working once the two-version CRD replaces it', async () => {
    // Written while the CRD had v1alpha1 only: stored as v1alpha1.
    await applyMiniCluster(
      clients,
      miniClusterObject(NAMESPACE, 'old', { size: 2, maxSize: 4, interactive: true }),
    );
    // And one where the operators of these first tests do not look.
    await applyMiniCluster(
      clients,
      miniClusterObject(ELSEWHERE, 'elsewhere', { size: 2, interactive: true }),
    );
    assert.equal(await storedApiVersion(ELSEWHERE, 'elsewhere'), `${GROUP}/${VERSION_V1ALPHA1}`);
    // This operator watches v1alpha2, which the old CRD does not serve yet: it waits for it.
    running = await startOperator();
    await waitFor(() => running?.lines.find((line) => line.includes('does not convert through a webhook')), {
      what: 'the operator to say the old CRD has no webhook to point at it',
      timeoutMs: 20_000,
    });

    // The upgrade, as a user makes it: `flux-operator install` applies the two-version CRD (pointing at
    // the in-cluster Service, which does not answer here); the running operator points it at itself
    // at its next pass, its own webhook answering.
    // Objects stored as v1alpha1 cannot do without the webhook: install points the CRD at the Service
    // (not converting nothing, which would read them relabelled), and says it needs an operator.
    const installLines: string[] = [];
    await installCommand({ kubeconfig, log: (line) => installLines.push(line) });
    assert.ok(
      installLines.includes(
        conversionLine({
          kind: 'needs-operator',
          webhook: `service ${OPERATOR_NAMESPACE}/flux-operator-webhook:443/convert`,
          stored: [VERSION_V1ALPHA1],
        }),
      ),
      installLines.join('\n'),
    );
    const webhook = running.operator.conversionWebhook;
    assert.ok(webhook);
    await waitPointedAt(webhook);

    const asV2 = await waitFor(() => getAs(V1ALPHA2, 'old'), { what: 'old read as v1alpha2' });
    assert.equal(asV2.apiVersion, `${GROUP}/${V1ALPHA2}`);
    // What v1alpha1 means, said in v1alpha2: no broker affinity.
    assert.deepEqual((asV2.spec as { network?: unknown }).network, { disableAffinity: true });
    await waitForCondition(clients, NAMESPACE, 'old', 'Ready', 'True', 60_000);
    const oldJob = await clients.batch.readNamespacedJob({ name: 'old', namespace: NAMESPACE });
    assert.equal(oldJob.spec?.template.spec?.affinity, undefined, "v1alpha1's pods: no affinity");
    // Still reconciled: a spec change through v1alpha1 reaches the Job.
    await clients.custom.patchNamespacedCustomObject({
      ...custom(VERSION_V1ALPHA1),
      name: 'old',
      body: { spec: { size: 3 } },
    });
    await waitFor(
      async () =>
        (await clients.batch.readNamespacedJob({ name: 'old', namespace: NAMESPACE })).spec?.parallelism ===
        3,
      { what: 'the Job of old scaled to 3', timeoutMs: 30_000 },
    );
    await applyMiniCluster(clients, miniClusterObject(NAMESPACE, 'new', { size: 2, interactive: true }));
    await waitForCondition(clients, NAMESPACE, 'new', 'Ready', 'True', 60_000);
    // Its storage-version migration rewrote what it watches, and says why storedVersions stays: the
    // MiniCluster elsewhere is still stored as v1alpha1.
    const [migrated] = await waitFor(
      () => {
        const found = logged(running?.lines ?? [], 'storage-version migration: rewrote');
        return found.length > 0 ? found : undefined;
      },
      { what: "the migration's line on the watched namespace", timeoutMs: 30_000 },
    );
    assert.match(
      String(migrated?.['msg']),
      /in the watched namespaces \(conversion-test\) in [\d.]+ s; status\.storedVersions stays \[v1alpha1, v1alpha2\]: this operator watches only these namespaces/,
    );
    assert.equal(await storedApiVersion(NAMESPACE, 'old'), `${GROUP}/${V1ALPHA2}`);
    assert.equal(await storedApiVersion(ELSEWHERE, 'elsewhere'), `${GROUP}/${VERSION_V1ALPHA1}`);
    assert.deepEqual((await readCrdStatus()).storedVersions?.sort(), [VERSION_V1ALPHA1, V1ALPHA2]);
  });

  it('watching every namespace, the migration rewrites what is stored as v1alpha1, then storedVersions is v1alpha2 alone', async () => {
    const read = async (namespace: string, name: string, version: string) => {
      const object = (await clients.custom.getNamespacedCustomObject({
        group: GROUP,
        version,
        plural: PLURAL,
        namespace,
        name,
      })) as { apiVersion: string; spec: unknown; metadata: Record<string, unknown> };
      const { uid, labels, annotations, generation } = object.metadata;
      return { apiVersion: object.apiVersion, spec: object.spec, uid, labels, annotations, generation };
    };
    const both = async (namespace: string, name: string) => ({
      v1: await read(namespace, name, VERSION_V1ALPHA1),
      v2: await read(namespace, name, V1ALPHA2),
    });
    const old = await both(NAMESPACE, 'old');
    const elsewhere = await both(ELSEWHERE, 'elsewhere');

    // The migration as a leader watching every namespace runs it, beside the operator that serves the
    // webhook (it watches NAMESPACE only): nothing but the migration writes `elsewhere`.
    const lines: string[] = [];
    const migration = new StorageVersionMigration({
      transport: apiClientsFor(loadKubeConfig(kubeconfig)).transport,
      log: createLogger({ level: 'debug', destination: lineSink(lines) }),
      namespaces: [],
      rewritesPerSecond: 50,
      retryMs: 500,
    });
    const rewrittenBefore = await clients.custom.getNamespacedCustomObject({
      ...custom(V1ALPHA2),
      namespace: ELSEWHERE,
      name: 'elsewhere',
    });
    migration.start();
    try {
      await waitFor(async () => isDeepStrictEqual((await readCrdStatus()).storedVersions, [V1ALPHA2]), {
        what: 'status.storedVersions to be [v1alpha2]',
        timeoutMs: 30_000,
      });
    } finally {
      migration.stop();
    }
    assert.equal(await storedApiVersion(ELSEWHERE, 'elsewhere'), `${GROUP}/${V1ALPHA2}`);
    const resourceVersion = (object: object) =>
      (object as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    assert.notEqual(
      resourceVersion(
        await clients.custom.getNamespacedCustomObject({
          ...custom(V1ALPHA2),
          namespace: ELSEWHERE,
          name: 'elsewhere',
        }),
      ),
      resourceVersion(rewrittenBefore),
      'elsewhere was written',
    );

    // Stored as v1alpha2 already (written since the upgrade): reads back exactly as before.
    assert.deepEqual(await both(NAMESPACE, 'old'), old);
    // Stored as v1alpha1 until now: as v1alpha1 the same object, the conversion's annotation aside
    // (it keeps what v1alpha1 cannot say); as v1alpha2 the same fields, and the defaults of the
    // disabled Flux view filled in, as the API server does on any write in v1alpha2. The stored spec
    // thus changed once, which counts as a generation (the operator reconciles it once more).
    const now = await both(ELSEWHERE, 'elsewhere');
    const { [V1ALPHA2_RESIDUE_ANNOTATION]: residue, ...annotations } = (now.v1.annotations ?? {}) as Record<
      string,
      string
    >;
    const generation = elsewhere.v1.generation as number;
    assert.ok(
      [generation, generation + 1].includes(now.v1.generation as number),
      `generation ${String(now.v1.generation)}`,
    );
    assert.deepEqual(
      { ...now.v1, annotations, generation: 0 },
      { ...elsewhere.v1, annotations: elsewhere.v1.annotations ?? {}, generation: 0 },
    );
    const added = addedPaths(elsewhere.v2.spec, now.v2.spec);
    assert.ok(
      added.every((path) => path.startsWith('flux.container.')),
      `only the Flux view's defaults added: ${added.join(', ')}`,
    );
    assert.equal((now.v2.spec as { flux: { container: { disable: boolean } } }).flux.container.disable, true);
    assert.deepEqual(
      { ...now.v2, spec: undefined, generation: 0 },
      { ...elsewhere.v2, spec: undefined, generation: 0 },
    );
    if (added.length > 0)
      assert.ok(residue, 'the annotation keeps the v1alpha2 defaults v1alpha1 cannot say');

    const [line] = logged(lines, 'storage-version migration: rewrote');
    assert.ok(line, lines.join('\n'));
    process.stderr.write(`[conversion] ${String(line['msg'])}\n`);
    assert.match(
      String(line['msg']),
      /^storage-version migration: rewrote 1 of 3 MiniClusters in [\d.]+ s \(.*\); status\.storedVersions is now \[v1alpha2\] \(was \[v1alpha1, v1alpha2\]\): v1alpha1 may be removed from the CRD$/,
    );
    const figure = (key: string) => line[key] as number;
    assert.equal(figure('listed'), 3);
    // elsewhere; old and new are stored as v1alpha2 (or written meanwhile by the operator).
    assert.equal(figure('rewritten'), 1);
    assert.equal(figure('unchanged') + figure('conflicts'), 2);
    assert.equal(typeof figure('seconds'), 'number');
    assert.deepEqual(
      lines.filter((line) => /"level":"(warn|error)"/.test(line)),
      [],
      'no warning',
    );
  });

  it('reads a v1alpha1 object back through v1alpha2 and back again unchanged', async () => {
    const before = await getAs(VERSION_V1ALPHA1, 'new');
    const asV2 = await getAs(V1ALPHA2, 'new');
    assert.equal(asV2.apiVersion, `${GROUP}/${V1ALPHA2}`);
    // Written back as v1alpha2 (a replace), then read as v1alpha1 again.
    await clients.custom.replaceNamespacedCustomObject({ ...custom(V1ALPHA2), name: 'new', body: asV2 });
    const back = await getAs(VERSION_V1ALPHA1, 'new');
    assert.equal(back.apiVersion, `${GROUP}/${VERSION_V1ALPHA1}`);
    assert.deepEqual(back.spec, before.spec);
    const meta = (o: Record<string, unknown>) => {
      const { name, namespace, uid, labels, annotations, generation } = o.metadata as Record<string, unknown>;
      return { name, namespace, uid, labels, annotations, generation };
    };
    assert.deepEqual(meta(back), meta(before));
  });

  it('lists the same objects through both versions with kubectl', async () => {
    const names = async (version: string) =>
      (await kubectl('get', `${PLURAL}.${version}.${GROUP}`, '-n', NAMESPACE, '-o', 'name'))
        .trim()
        .split('\n')
        .sort();
    const v1 = await names(VERSION_V1ALPHA1);
    assert.deepEqual(v1, [`minicluster.${GROUP}/new`, `minicluster.${GROUP}/old`]);
    assert.deepEqual(await names(V1ALPHA2), v1);
    const items = JSON.parse(
      await kubectl('get', `${PLURAL}.${V1ALPHA2}.${GROUP}`, '-n', NAMESPACE, '-o', 'json'),
    ) as {
      items: { apiVersion: string }[];
    };
    assert.deepEqual([...new Set(items.items.map((item) => item.apiVersion))], [`${GROUP}/${V1ALPHA2}`]);
  });

  it('measures what a get through the webhook adds to one without conversion', async () => {
    // 'new' is stored as v1alpha2 now: read as v1alpha2 nothing is converted, as v1alpha1 the webhook
    // is. Interleaved, so that load on the machine weighs on both alike.
    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < 110; i++) {
      for (const [version, samples] of [
        [V1ALPHA2, direct],
        [VERSION_V1ALPHA1, through],
      ] as const) {
        const start = performance.now();
        await getAs(version, 'new');
        if (i >= 10) samples.push(performance.now() - start);
      }
    }
    const [plain, converted] = [median(direct), median(through)];
    process.stderr.write(
      `[conversion] get of a MiniCluster, median of 100: ${plain.toFixed(2)} ms without conversion, ` +
        `${converted.toFixed(2)} ms through the webhook (${(converted - plain).toFixed(2)} ms more)\n`,
    );
    assert.ok(converted > 0 && plain > 0);
  });

  it('renews the serving certificate and the CA while serving, without a restart or a failed request', async () => {
    await running?.stop();
    // Its own Secret: certificates made under this short policy from the start.
    const secret = { namespace: 'default', name: 'short-lived-webhook-cert' };
    running = await startOperator({
      // Renewed at 30% of their lives (which start a tenth early, for clock skew): a serving
      // certificate about every 5 s, a CA about every 14 s; a new CA signs 6 s after it joins the
      // bundle. A pass may come 9 s late before anything served expires (passes ran 6 s late on a
      // loaded machine).
      policy: { caValidityMs: 60_000, servingValidityMs: 20_000, renewAt: 0.3, trustDelayMs: 6_000 },
      syncIntervalMs: 250,
      secret,
    });
    const webhook = running.operator.conversionWebhook;
    assert.ok(webhook);
    await waitPointedAt(webhook);
    const port = webhook.port;
    const served = new Set<string>();
    const cas = new Set<string>();
    const failures: string[] = [];
    let reads = 0;
    let retried = 0;
    // As client-go does (kubectl, controllers): a 429 with Retry-After is waited out and retried. The
    // API server answers one ("storage is (re)initializing") a moment after every change of the CRD,
    // the caBundle of a new CA included; what this test forbids is a read that fails for good.
    const read = async (what: () => Promise<unknown>): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        try {
          await what();
          return;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (code !== 429 || attempt >= 10) throw error;
          retried += 1;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
    };
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      try {
        await read(() => getAs(VERSION_V1ALPHA1, 'new'));
        await read(() => clients.custom.listNamespacedCustomObject(custom(VERSION_V1ALPHA1)));
        reads += 2;
      } catch (error) {
        failures.push((error as Error).message);
      }
      served.add(webhook.servedCertificate ?? '');
      const stored = await clients.core.readNamespacedSecret(secret);
      cas.add((stored.data?.['ca.crt'] ?? '').slice(0, 200));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    process.stderr.write(
      `[conversion] ${reads} reads during ${served.size} serving certificates and ${cas.size} CAs (${retried} retried after a 429)\n`,
    );
    // What the webhook did, to tell a late pass from a pass that did not renew.
    const webhookLines = running.lines.filter((line) => line.includes('conversion-webhook'));
    assert.deepEqual(
      failures,
      [],
      `no read failed while the certificates were renewed; the webhook's log:\n${webhookLines.join('\n')}`,
    );
    assert.ok(served.size >= 3, `the serving certificate was renewed (${served.size} seen)`);
    assert.ok(cas.size >= 2, `the CA was renewed (${cas.size} seen)`);
    assert.equal(webhook.port, port, 'the same server all along');
  });

  it('gives a clear error from the API server when the webhook is unreachable', async () => {
    const url = (running?.operator.conversionWebhook?.clientConfig() as { url: string }).url;
    await running?.stop();
    running = undefined;
    const error = await getAs(VERSION_V1ALPHA1, 'new').then(
      () => assert.fail('a read needing conversion succeeded with no webhook'),
      (thrown: unknown) => thrown as { code?: number; body?: unknown; message: string },
    );
    const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
    process.stderr.write(
      `[conversion] with the webhook down the API server answers ${error.code}: ${body}\n`,
    );
    assert.equal(error.code, 500);
    assert.ok(body.includes(`conversion webhook for ${GROUP}/${V1ALPHA2}, Kind=MiniCluster failed`), body);
    assert.ok(body.includes(url.replace(/\/convert$/, '')), `names the URL it tried (${url})`);
    // Refused, for a request on a new connection. The API server's client may still hold a connection
    // from before the stop that it has not seen closed yet: its request then fails on that one, with
    // the write's error (a CI run saw `write: broken pipe`), which Go does not retry for a POST.
    assert.match(body, /connection refused|write: broken pipe|connection reset by peer/);
  });

  it('through a Service without a ready endpoint: the API server names the Service, the operator says why', async () => {
    // In cluster, the CRD names the operator's Service; here one that selects no pod. Headless: this
    // cluster has no kube-proxy, so a cluster IP would route nowhere on this machine, and the API
    // server refuses to call it without dialing anything.
    const namespace = 'webhook-gone';
    const name = 'flux-operator-webhook';
    await clients.core.createNamespace({ body: { metadata: { name: namespace } } });
    await clients.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name },
        spec: {
          clusterIP: 'None',
          selector: { app: 'no-such-pod' },
          ports: [{ port: 443, targetPort: 9443 }],
        },
      },
    });
    running = await startOperator({
      service: { namespace, name },
      secret: { namespace, name: WEBHOOK_CERT_SECRET },
      startGraceMs: 0,
    });
    const webhook = running.operator.conversionWebhook;
    assert.ok(webhook);
    const said = await waitFor(
      () =>
        running?.lines
          .map((line) => JSON.parse(line) as { level: number | string; msg: string })
          .find((line) => line.msg.startsWith('the conversion webhook does not answer')),
      { what: "the operator's line on its webhook not answering", timeoutMs: 30_000 },
    );
    assert.equal(
      said.msg,
      `the conversion webhook does not answer at service ${namespace}/${name}:443/convert: ` +
        'the Service has no ready endpoint (no operator pod behind it is Ready, or its selector matches none); ' +
        'the API server cannot convert MiniClusters through it',
    );
    // Not answering, it never takes the CRD from the webhook it has (the stopped one's URL).
    assert.ok('url' in ((await liveClientConfig()) ?? {}), 'the CRD still names a URL');
    // Pointed there anyway (by hand): the API server's error names the Service.
    const clientConfig = webhook.clientConfig();
    assert.ok(clientConfig && 'service' in clientConfig);
    await clients.objects.patch({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD_NAME },
      spec: { conversion: { webhook: { clientConfig: { ...clientConfig, url: null } } } },
    } as never);
    const serviceUrl = `https://${name}.${namespace}.svc:443/convert`;
    const bodyOf = (error: { body?: unknown }) =>
      typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
    // (Until the API server has taken the patched CRD in, it still calls the URL before it.)
    const error = await waitFor(
      () =>
        getAs(VERSION_V1ALPHA1, 'new').then(
          () => undefined,
          (thrown: unknown) => {
            const failed = thrown as { code?: number; body?: unknown };
            return bodyOf(failed).includes(serviceUrl) ? failed : undefined;
          },
        ),
      { what: 'a read needing conversion to fail naming the Service', timeoutMs: 30_000 },
    );
    const body = bodyOf(error);
    process.stderr.write(
      `[conversion] through a Service with no endpoint the API server answers ${error.code}: ${body}\n`,
    );
    assert.equal(error.code, 500);
    assert.ok(body.includes(`conversion webhook for ${GROUP}/${V1ALPHA2}, Kind=MiniCluster failed`), body);
    await running.stop();
    running = undefined;
  });

  it('`flux-operator run` serves it on a free port, points the CRD at it, and takes --flux-view-image', async () => {
    const operator = await spawnOperator(NAMESPACE, ['--flux-view-image', 'localhost/flux-view:0.88.0'], {
      kubeconfig,
      ownWebhook: true,
    });
    const logged = (message: string) => {
      const line = operator.lines.find((line) => line.includes(`"msg":"${message}"`));
      return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
    };
    try {
      const started = logged('flux-operator starting');
      assert.equal(started?.['fluxViewImage'], 'localhost/flux-view:0.88.0');
      assert.equal(started?.['conversionWebhook'], 'url');
      const serving = await waitFor(() => logged('serving the conversion webhook'), {
        what: 'the webhook to serve',
        timeoutMs: 30_000,
      });
      await waitFor(
        async () =>
          (await liveClientConfig())?.['url' as never] ===
          `https://127.0.0.1:${String(serving['port'])}/convert`,
        { what: 'the CRD pointed at the process', timeoutMs: 20_000 },
      );
      assert.ok(await waitFor(() => getAs(VERSION_V1ALPHA1, 'new'), { what: 'a read through it' }));
    } finally {
      await operator.kill('SIGTERM');
    }
  });

  it('says why when it cannot listen: the operator exits and logs the address and the fix', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const child = spawn(
        process.execPath,
        [
          MAIN,
          'run',
          '--kubeconfig',
          kubeconfig,
          '--namespace',
          NAMESPACE,
          '--webhook-addr',
          `127.0.0.1:${port}`,
          '--metrics-addr',
          '0',
          '--health-addr',
          '0',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(timer);
      assert.equal(code, 1, output);
      const logged = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: string; msg: string })
        .find((line) => line.msg.startsWith('cannot serve the conversion webhook'));
      assert.ok(logged, output);
      assert.equal(logged.level, 'error');
      assert.match(
        logged.msg,
        new RegExp(`on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE.*pass --webhook-addr with a free port`),
      );
      assert.match(output, /^error: cannot serve the conversion webhook on /m);
    } finally {
      busy.close();
    }
  });

  it("points the CRD at itself with the install's RBAC, and says what is missing without it", async () => {
    // The ServiceAccount `flux-operator install` made, bound to the operator's ClusterRole.
    const lines: string[] = [];
    const installed = new ConversionWebhook({
      transport: apiClients(
        loadClusterAccess(await serviceAccountKubeconfig(OPERATOR_NAMESPACE, OPERATOR_NAME)),
      ).transport,
      log: createLogger({ level: 'info', destination: lineSink(lines) }),
      convert: convertMiniCluster,
      address: { host: '127.0.0.1', port: 0 },
      secret: { namespace: OPERATOR_NAMESPACE, name: WEBHOOK_CERT_SECRET },
    });
    await installed.start();
    try {
      await waitPointedAt(installed);
      assert.ok(await getAs(VERSION_V1ALPHA1, 'new'), 'conversions work through it');
      assert.deepEqual(
        lines.filter((line) => /"level":"(warn|error)"/.test(line)),
        [],
        'nothing refused',
      );
    } finally {
      await installed.stop();
    }

    // The same rules but the CRD's: refused, and the log line says which rule is missing.
    const role = 'flux-operator-without-crd';
    await clients.core.createNamespacedServiceAccount({
      namespace: NAMESPACE,
      body: { metadata: { name: 'limited' } },
    });
    for (const object of [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        // The webhook's certificate Secret is its Role's in an install (WEBHOOK_SECRET_RULES).
        rules: [...OPERATOR_RULES, ...WEBHOOK_SECRET_RULES]
          .filter((rule) => !rule.apiGroups.includes('apiextensions.k8s.io'))
          .map(policyRule),
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace: NAMESPACE }],
      },
    ]) {
      await serverSideApply(clients.objects, object as never, 'flux-operator-tests');
    }
    const refusedLines: string[] = [];
    const limited = new ConversionWebhook({
      transport: apiClients(loadClusterAccess(await serviceAccountKubeconfig(NAMESPACE, 'limited')))
        .transport,
      log: createLogger({ level: 'info', destination: lineSink(refusedLines) }),
      convert: convertMiniCluster,
      address: { host: '127.0.0.1', port: 0 },
      secret: { namespace: NAMESPACE, name: WEBHOOK_CERT_SECRET },
    });
    await limited.start();
    await limited.stop();
    const error = refusedLines
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'error');
    assert.ok(error, refusedLines.join('\n'));
    assert.match(
      error.msg,
      new RegExp(
        `^cannot point the ${CRD_NAME.replace(/\./g, '\\.')} conversion webhook at this operator: .*forbidden.*; its ClusterRole needs get and patch on customresourcedefinitions named ${CRD_NAME.replace(/\./g, '\\.')}$`,
      ),
    );
  });
});
