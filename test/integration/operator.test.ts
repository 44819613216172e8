import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { LABEL_MINICLUSTER, SECRET_DATA_KEYS } from '../../src/api/index.ts';
import { readMiniClusterStatus } from '../../src/controllers/minicluster/minicluster-client.ts';
import { EXIT_CODE_ANNOTATION } from '../../workbench/src/localcluster/index.ts';
import { annotatePod, cluster, finishPods, httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  conditionOf,
  kubectl,
  miniClusterObject,
  podsOf,
  readStatus,
  scaleMiniCluster,
  startOperator,
  waitForCondition,
  type RunningOperator,
} from '../harness/operator.ts';

const MAIN = join(new URL('../../', import.meta.url).pathname, 'src/cli/main.ts');

async function operatorIn(t: TestContext): Promise<{ namespace: string; operator: RunningOperator }> {
  const namespace = await withNamespace(t, 'op');
  const operator = await startOperator(namespace);
  t.after(() => operator.stop());
  return { namespace, operator };
}

function runningPods(pods: Awaited<ReturnType<typeof podsOf>>): number {
  return pods.filter((pod) => pod.status?.phase === 'Running' && !pod.metadata?.deletionTimestamp).length;
}

describe('the MiniCluster controller on the local control plane', { concurrency: 3 }, () => {
  it('creates every object and size running pods, then reports Ready', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'hello', { size: 4, tasks: 4 }));
    const status = await waitForCondition(clients, namespace, 'hello', 'Ready', 'True');
    assert.equal(status.summary, 'Ready');
    assert.equal(status.readyPods, 4);
    assert.equal(status.size, 4);
    assert.equal(status.maximumSize, 4);
    assert.equal(status.jobName, 'hello');
    assert.equal(
      status.selector,
      'app.kubernetes.io/name=flux-minicluster,flux-framework.org/minicluster=hello,app.kubernetes.io/component=broker',
    );
    assert.equal(conditionOf(status, 'Ready')?.message, '4/4 brokers running');
    assert.equal(typeof status.observedGeneration, 'number');

    const pods = await podsOf(clients, namespace, 'hello');
    assert.deepEqual(pods.map((pod) => pod.spec?.hostname).sort(), [
      'hello-0',
      'hello-1',
      'hello-2',
      'hello-3',
    ]);
    assert.ok(pods.every((pod) => pod.spec?.subdomain === 'hello'));
    const { core, batch } = clients;
    const job = await batch.readNamespacedJob({ name: 'hello', namespace });
    assert.equal(job.metadata?.ownerReferences?.[0]?.kind, 'MiniCluster');
    assert.equal(job.metadata?.ownerReferences?.[0]?.controller, true);
    await core.readNamespacedService({ name: 'hello', namespace });
    await core.readNamespacedConfigMap({ name: 'hello-flux-config', namespace });
    await core.readNamespacedSecret({ name: 'hello-curve-cert', namespace });
    await core.readNamespacedSecret({ name: 'hello-munge-key', namespace });

    await waitFor(
      async () =>
        (await clients.events.listNamespacedEvent({ namespace })).items.some(
          (event) => event.reason === 'Ready' && event.regarding?.name === 'hello',
        ),
      { what: 'the Ready event' },
    );
  });

  it('shows size, ready pods and status in `kubectl get mc`', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    await applyMiniCluster(
      operator.clients,
      miniClusterObject(namespace, 'columns', { size: 2, interactive: true }),
    );
    await waitForCondition(operator.clients, namespace, 'columns', 'Ready', 'True');
    const { stdout } = await kubectl('get', 'mc', '-n', namespace);
    const [header, row] = stdout.trim().split('\n');
    assert.deepEqual(header?.split(/\s+/), ['NAME', 'SIZE', 'READY', 'STATUS', 'AGE']);
    assert.deepEqual(row?.split(/\s+/).slice(0, 4), ['columns', '2', '2', 'Ready']);
    const wide = await kubectl('get', 'mc', '-n', namespace, '-o', 'wide');
    assert.match(wide.stdout.split('\n')[0] ?? '', /MAX\s+JOB/);
  });

  it('scales up and down within maxSize and refuses to go past it', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'elastic', { size: 2, maxSize: 5, interactive: true }),
    );
    await waitForCondition(clients, namespace, 'elastic', 'Ready', 'True');

    await scaleMiniCluster(clients, namespace, 'elastic', 5);
    await waitFor(async () => runningPods(await podsOf(clients, namespace, 'elastic')) === 5, {
      what: '5 running pods',
    });
    const grown = await waitForCondition(clients, namespace, 'elastic', 'Ready', 'True');
    assert.equal(
      (await clients.batch.readNamespacedJob({ name: 'elastic', namespace })).spec?.parallelism,
      5,
    );
    assert.equal(grown.maximumSize, 5);

    await scaleMiniCluster(clients, namespace, 'elastic', 3);
    await waitFor(async () => runningPods(await podsOf(clients, namespace, 'elastic')) === 3, {
      what: '3 running pods',
    });
    await waitFor(async () => (await readStatus(clients, namespace, 'elastic')).size === 3, {
      what: 'status.size 3',
    });

    await assert.rejects(
      () => scaleMiniCluster(clients, namespace, 'elastic', 6),
      (error: unknown) => {
        assert.equal(httpStatus(error), 422);
        assert.match(String((error as { body?: unknown }).body), /maxSize/);
        return true;
      },
    );
  });

  it('refuses to scale a MiniCluster without maxSize beyond its size at creation', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'fixed', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'fixed', 'Ready', 'True');
    await assert.rejects(
      () => scaleMiniCluster(clients, namespace, 'fixed', 3),
      (error: unknown) =>
        httpStatus(error) === 422 && /maximumSize/.test(String((error as { body?: unknown }).body)),
    );
  });

  it('has invalid specs refused by the API server with the field named', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ size: 4, maxSize: 2 }, /spec\.maxSize/],
      [{ size: 0 }, /spec\.size/],
      [{ size: 1, containers: [] }, /spec\.containers/],
      [{ size: 1, flux: { logLevel: 9 } }, /spec\.flux\.logLevel/],
    ];
    for (const [spec, field] of cases) {
      await assert.rejects(
        () => applyMiniCluster(operator.clients, miniClusterObject(namespace, 'invalid', spec)),
        (error: unknown) => {
          assert.equal(httpStatus(error), 422, JSON.stringify(spec));
          assert.match(String((error as { body?: unknown }).body), field);
          return true;
        },
      );
    }
  });

  it('reports Succeeded when every broker exits 0, and Failed when the lead exits non-zero', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'good', { size: 3 }));
    await applyMiniCluster(clients, miniClusterObject(namespace, 'bad', { size: 3 }));
    await waitForCondition(clients, namespace, 'good', 'Ready', 'True');
    await waitForCondition(clients, namespace, 'bad', 'Ready', 'True');

    await finishPods(clients.core, namespace, 'good', 0);
    const good = await waitForCondition(clients, namespace, 'good', 'Succeeded', 'True');
    assert.equal(good.summary, 'Succeeded');
    assert.equal(conditionOf(good, 'Ready')?.status, 'False');
    await waitFor(async () => (await readStatus(clients, namespace, 'good')).completionTime, {
      what: 'status.completionTime',
    });

    const lead = (await podsOf(clients, namespace, 'bad')).find((pod) => pod.spec?.hostname === 'bad-0');
    await annotatePod(clients.core, namespace, lead?.metadata?.name ?? '', { [EXIT_CODE_ANNOTATION]: '3' });
    const bad = await waitForCondition(clients, namespace, 'bad', 'Failed', 'True');
    assert.equal(bad.summary, 'Failed');
    // Events follow the status write that announces them.
    await waitFor(
      async () => {
        const events = (await clients.events.listNamespacedEvent({ namespace })).items;
        return (
          events.some((event) => event.reason === 'Failed' && event.regarding?.name === 'bad') &&
          events.some((event) => event.reason === 'Succeeded' && event.regarding?.name === 'good')
        );
      },
      { what: 'the Failed and Succeeded events' },
    );
  });

  it('deletes a MiniCluster with cleanup: true once its lead broker finished', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'tidy', { size: 2, cleanup: true }));
    await waitForCondition(clients, namespace, 'tidy', 'Ready', 'True');
    await finishPods(clients.core, namespace, 'tidy', 0);
    await waitFor(async () => (await readMiniClusterStatus(clients, namespace, 'tidy')) === undefined, {
      what: 'the finished MiniCluster to be deleted',
    });
  });

  it('exposes the lead broker of a MiniCluster that declares burst clusters and reports its address', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'bursty', {
        size: 2,
        interactive: true,
        flux: {
          bursting: {
            clusters: [{ name: 'burst-0', size: 2 }],
            expose: { type: 'NodePort', nodePort: 31050 },
          },
        },
      }),
    );
    const status = await waitFor(
      async () => {
        const current = await readStatus(clients, namespace, 'bursty');
        return current.leadBroker?.address ? current : false;
      },
      { what: 'status.leadBroker.address' },
    );
    assert.deepEqual(status.leadBroker, { service: 'bursty-lead-broker', address: '127.0.0.1', port: 31050 });
    const service = await clients.core.readNamespacedService({ name: 'bursty-lead-broker', namespace });
    assert.equal(service.spec?.type, 'NodePort');
    // Two hosts of burst-0 are listed but down, so 2 of 4 ranks up is Ready for this MiniCluster.
    assert.equal(
      conditionOf(await waitForCondition(clients, namespace, 'bursty', 'Ready', 'True'), 'Ready')?.message,
      '2/2 brokers running',
    );
  });

  it('connects two MiniClusters into one host list behind one shared Service', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    const network = { headlessName: 'connected', sharedSelector: { 'flux-framework.org/connected': 'pair' } };
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'first', {
        size: 2,
        interactive: true,
        network,
        flux: { bursting: { clusters: [{ name: 'second', size: 2 }] } },
      }),
    );
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'second', {
        size: 2,
        interactive: true,
        network,
        flux: { bootServer: 'first', bootServerSize: 2 },
      }),
    );
    await waitForCondition(clients, namespace, 'first', 'Ready', 'True');
    await waitForCondition(clients, namespace, 'second', 'Ready', 'True');
    const hosts = async (name: string) => {
      const toml =
        (await clients.core.readNamespacedConfigMap({ name: `${name}-flux-config`, namespace })).data?.[
          'broker.toml'
        ] ?? '';
      return [...toml.matchAll(/host = "([^"]+)"/g)].map((match) => match[1]);
    };
    assert.deepEqual(await hosts('first'), ['first-[0-1]', 'second-[0-1]']);
    assert.deepEqual(await hosts('second'), ['first-[0-1]', 'second-[0-1]']);
    const endpoints = await waitFor(
      async () => {
        const { discovery } = await cluster();
        const slices = await discovery.listNamespacedEndpointSlice({
          namespace,
          labelSelector: 'kubernetes.io/service-name=connected',
        });
        const names = slices.items
          .flatMap((slice) => (slice.endpoints ?? []).map((endpoint) => endpoint.hostname ?? ''))
          .sort();
        return names.length === 4 ? names : false;
      },
      { what: 'four endpoints behind the shared Service' },
    );
    assert.deepEqual(endpoints, ['first-0', 'first-1', 'second-0', 'second-1']);
  });

  it('restores a child deleted or changed by hand', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'restore', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'restore', 'Ready', 'True');
    const before = await clients.core.readNamespacedService({ name: 'restore', namespace });

    await clients.core.deleteNamespacedService({ name: 'restore', namespace });
    const restored = await waitFor(
      async () => {
        try {
          const service = await clients.core.readNamespacedService({ name: 'restore', namespace });
          return service.metadata?.uid !== before.metadata?.uid ? service : false;
        } catch (error) {
          if (httpStatus(error) === 404) return false;
          throw error;
        }
      },
      { what: 'the deleted Service to be recreated' },
    );
    assert.equal(restored.spec?.clusterIP, 'None');

    await kubectl(
      'patch',
      'configmap',
      'restore-flux-config',
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"data":{"broker.toml":"tampered"}}',
    );
    await waitFor(
      async () => {
        const configMap = await clients.core.readNamespacedConfigMap({
          name: 'restore-flux-config',
          namespace,
        });
        return configMap.data?.['broker.toml']?.includes('[bootstrap]') ?? false;
      },
      { what: 'the changed ConfigMap to be restored' },
    );
  });

  it('deletes every child with the MiniCluster', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'doomed', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'doomed', 'Ready', 'True');
    await kubectl('delete', 'mc', 'doomed', '-n', namespace, '--wait=true');
    await waitFor(
      async () => {
        const [jobs, services, configMaps, secrets, pods] = await Promise.all([
          clients.batch.listNamespacedJob({ namespace }),
          clients.core.listNamespacedService({ namespace }),
          clients.core.listNamespacedConfigMap({
            namespace,
            labelSelector: 'app.kubernetes.io/managed-by=flux-operator',
          }),
          clients.core.listNamespacedSecret({
            namespace,
            labelSelector: 'app.kubernetes.io/managed-by=flux-operator',
          }),
          podsOf(clients, namespace, 'doomed'),
        ]);
        return (
          jobs.items.length +
            services.items.length +
            configMaps.items.length +
            secrets.items.length +
            pods.length ===
          0
        );
      },
      { what: 'the children to be garbage-collected', timeoutMs: 60_000 },
    );
  });

  it('waits with a clear condition for a missing user Secret, then proceeds once it exists', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'waiting', {
        size: 2,
        interactive: true,
        flux: { mungeSecret: 'team-munge' },
      }),
    );
    const waiting = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'waiting');
        return conditionOf(status, 'Ready')?.reason === 'SecretMissing' ? status : false;
      },
      { what: 'a SecretMissing condition' },
    );
    assert.match(
      conditionOf(waiting, 'Ready')?.message ?? '',
      /spec\.flux\.mungeSecret: Secret .*\/team-munge does not exist/,
    );
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'team-munge' },
        // Spelled out on purpose: the key a user's own Secret must have (spec.flux.mungeSecret).
        data: { 'munge.key': Buffer.alloc(1024, 7).toString('base64') },
      },
    });
    await waitForCondition(clients, namespace, 'waiting', 'Ready', 'True', 45_000);
  });

  it('creates nothing when the API server would refuse the Job, says why, and goes on once allowed', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    // An admission policy of the cluster, such as a platform team sets: no Job in this namespace.
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: `no-jobs-${namespace}` },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['batch'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['jobs'],
            },
          ],
        },
        validations: [{ expression: 'false', message: 'Jobs wait for a review in this namespace' }],
      },
    };
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `no-jobs-${namespace}` },
      spec: {
        policyName: policy.metadata.name,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    };
    for (const object of [policy, binding]) {
      await clients.objects.create(object as never);
      t.after(() => clients.objects.delete(object as never).catch(() => undefined));
    }
    const jobRefused = async () => {
      try {
        await clients.batch.createNamespacedJob({
          namespace,
          dryRun: 'All',
          body: {
            metadata: { name: 'probe' },
            spec: {
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
            },
          },
        });
        return false;
      } catch (error) {
        if (httpStatus(error) === undefined) throw error;
        return true;
      }
    };
    await waitFor(jobRefused, { what: 'the admission policy to take effect' });

    await applyMiniCluster(clients, miniClusterObject(namespace, 'reviewed', { size: 2, interactive: true }));
    const refused = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'reviewed');
        return conditionOf(status, 'Ready')?.reason === 'ApplyFailed' ? status : false;
      },
      { what: 'an ApplyFailed condition' },
    );
    assert.match(conditionOf(refused, 'Ready')?.message ?? '', /Job\/reviewed: .*Jobs wait for a review/);
    const owned = { namespace, labelSelector: 'flux-framework.org/minicluster=reviewed' };
    const [configMaps, secrets, services, jobs] = await Promise.all([
      clients.core.listNamespacedConfigMap(owned),
      clients.core.listNamespacedSecret(owned),
      clients.core.listNamespacedService(owned),
      clients.batch.listNamespacedJob(owned),
    ]);
    assert.deepEqual(
      [configMaps.items, secrets.items, services.items, jobs.items].map((list) => list.length),
      [0, 0, 0, 0],
      'nothing half-made',
    );
    assert.deepEqual(
      operator.logLines.filter((line) => line.includes('"level":"error"')),
      [],
      'a refusal is a condition and an event, not an error line',
    );

    await clients.objects.delete(binding as never);
    await waitFor(async () => !(await jobRefused()), { what: 'the admission policy to be lifted' });
    // The operator looks again by itself (every 30 s), or at once when the spec changes.
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'reviewed', { size: 2, interactive: true, logging: { quiet: true } }),
    );
    await waitForCondition(clients, namespace, 'reviewed', 'Ready', 'True', 45_000);
  });

  it('makes no API writes at steady state, and keeps keys across passes', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'steady', { size: 3, interactive: true }));
    await waitForCondition(clients, namespace, 'steady', 'Ready', 'True');
    await operator.manager.idle();
    const keysBefore = (await clients.core.readNamespacedSecret({ name: 'steady-curve-cert', namespace }))
      .data;
    const writesBefore = operator.writes.length;
    // A spec change that renders the same objects (a label on the MiniCluster) triggers a pass.
    await kubectl('label', 'mc', 'steady', '-n', namespace, 'touched=yes');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await operator.manager.idle();
    assert.deepEqual(operator.writes.slice(writesBefore), []);
    const keysAfter = (await clients.core.readNamespacedSecret({ name: 'steady-curve-cert', namespace }))
      .data;
    assert.deepEqual(keysAfter, keysBefore);
  });

  it('runs spec.services in a Deployment it owns, never counts it as a broker, writes nothing more at steady state, and deletes it once dropped', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    const object = miniClusterObject(namespace, 'svc', {
      size: 2,
      interactive: true,
      services: [{ name: 'web', image: 'nginx', ports: [80] }],
    });
    await applyMiniCluster(clients, object);
    const status = await waitForCondition(clients, namespace, 'svc', 'Ready', 'True');
    assert.equal(status.readyPods, 2);
    assert.equal(conditionOf(status, 'Ready')?.message, '2/2 brokers running');
    const deployment = await clients.apps.readNamespacedDeployment({ name: 'svc-services', namespace });
    assert.equal(deployment.metadata?.ownerReferences?.[0]?.kind, 'MiniCluster');
    assert.equal(deployment.metadata?.ownerReferences?.[0]?.controller, true);
    assert.equal(deployment.spec?.template.spec?.hostname, 'svc-services');
    assert.equal(deployment.spec?.template.spec?.subdomain, 'svc');
    // Its pod is on the MiniCluster's network (the headless Service selects it) but not a broker.
    await waitFor(async () => (await podsOf(clients, namespace, 'svc')).length === 3, {
      what: 'the 2 broker pods and the services pod',
    });
    const brokers = await clients.core.listNamespacedPod({ namespace, labelSelector: status.selector ?? '' });
    assert.equal(brokers.items.length, 2);

    await operator.manager.idle();
    const writesBefore = operator.writes.length;
    await kubectl('label', 'mc', 'svc', '-n', namespace, 'touched=yes');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await operator.manager.idle();
    assert.deepEqual(operator.writes.slice(writesBefore), []);

    delete (object.spec as Record<string, unknown>).services;
    await applyMiniCluster(clients, object);
    await waitFor(
      async () => {
        try {
          await clients.apps.readNamespacedDeployment({ name: 'svc-services', namespace });
          return false;
        } catch (error) {
          return httpStatus(error) === 404;
        }
      },
      { what: 'the services Deployment deleted once the spec drops services' },
    );
    // Counted once its answer is in, which can trail the read that found the Deployment gone.
    await operator.manager.idle();
    assert.ok(operator.writes.includes('delete:deployments'), operator.writes.join(' '));
  });

  it('keeps secret material out of every ConfigMap, event and log line', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    await applyMiniCluster(clients, miniClusterObject(namespace, 'private', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'private', 'Ready', 'True');
    const curve = Buffer.from(
      (await clients.core.readNamespacedSecret({ name: 'private-curve-cert', namespace })).data?.[
        SECRET_DATA_KEYS.curveCert
      ] ?? '',
      'base64',
    ).toString('utf8');
    const secretKey = /secret-key = "([^"]+)"/.exec(curve)?.[1];
    assert.ok(secretKey && secretKey.length === 40);
    const mungeBase64 =
      (await clients.core.readNamespacedSecret({ name: 'private-munge-key', namespace })).data?.[
        SECRET_DATA_KEYS.mungeKey
      ] ?? '';
    const needles = [secretKey, mungeBase64.slice(0, 32)];

    const configMaps = JSON.stringify((await clients.core.listNamespacedConfigMap({ namespace })).items);
    const events = JSON.stringify((await clients.events.listNamespacedEvent({ namespace })).items);
    const logs = operator.logLines.join('\n');
    assert.ok(operator.logLines.length > 0);
    for (const needle of needles) {
      assert.ok(!configMaps.includes(needle), 'a ConfigMap holds key material');
      assert.ok(!events.includes(needle), 'an event holds key material');
      assert.ok(!logs.includes(needle), 'a log line holds key material');
    }
  });

  it('creates the key Secrets, never overwrites one its cache had not seen, and adopts its keys', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    // A Secret without the operator's labels is never in its cache (it watches its own): to the
    // operator it is one made a moment ago, which the create of new keys finds there.
    const certificate = 'a certificate stored before the operator looked\n';
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'adopted-curve-cert' },
        data: { [SECRET_DATA_KEYS.curveCert]: Buffer.from(certificate).toString('base64') },
      },
    });
    await applyMiniCluster(clients, miniClusterObject(namespace, 'adopted', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'adopted', 'Ready', 'True');
    const stored = await clients.core.readNamespacedSecret({ name: 'adopted-curve-cert', namespace });
    assert.equal(
      Buffer.from(stored.data?.[SECRET_DATA_KEYS.curveCert] ?? '', 'base64').toString('utf8'),
      certificate,
    );
    assert.equal(stored.metadata?.labels?.[LABEL_MINICLUSTER], 'adopted');
    assert.ok(
      operator.logLines.some((line) => line.includes('appeared meanwhile; using its keys')),
      'the create found the Secret there',
    );
  });

  it('RESTful mode: makes the Secret and Service <name>-restful, keeps the seed across operators, adds users with their own token, never logs a credential', async (t) => {
    const { namespace, operator } = await operatorIn(t);
    const { clients } = operator;
    const spec = { size: 2, containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest' }] };
    await applyMiniCluster(clients, miniClusterObject(namespace, 'api', spec));
    await waitForCondition(clients, namespace, 'api', 'Ready', 'True');
    const service = await clients.core.readNamespacedService({ name: 'api-restful', namespace });
    assert.deepEqual(
      service.spec?.ports?.map((port) => [port.name, port.port]),
      [['http', 5000]],
    );
    assert.equal(service.spec?.selector?.['batch.kubernetes.io/job-completion-index'], '0');
    const read = async () => {
      const data = (await clients.core.readNamespacedSecret({ name: 'api-restful', namespace })).data ?? {};
      const text = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
      return {
        seed: data[SECRET_DATA_KEYS.restful.seed],
        token: text(SECRET_DATA_KEYS.restful.token),
        users: JSON.parse(text(SECRET_DATA_KEYS.restful.credentials)).users as object,
      };
    };
    const first = await read();
    assert.equal(Buffer.from(first.seed ?? '', 'base64').length, 32);
    assert.deepEqual(first.users, { flux: first.token });

    // Another operator (a restart) reads the seed back; a user added later gets a token of its own.
    await operator.stop();
    const next = await startOperator(namespace);
    t.after(() => next.stop());
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, 'api', { ...spec, users: [{ name: 'peenut' }] }),
    );
    const second = await waitFor(
      async () => {
        const now = await read();
        return 'peenut' in now.users ? now : undefined;
      },
      { what: 'the Secret with the new user' },
    );
    assert.equal(second.seed, first.seed);
    assert.equal(second.token, first.token);
    const peenut = (second.users as Record<string, string>).peenut ?? '';
    assert.match(peenut, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(peenut, first.token);

    // The CLI names a MiniCluster that does not serve the API (it has a command).
    await applyMiniCluster(clients, miniClusterObject(namespace, 'batch', { size: 1 }));
    const { kubeconfig } = await cluster();
    const refused = spawnSync(process.execPath, [MAIN, 'jobs', 'list', 'batch', '-n', namespace], {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    assert.equal(refused.status, 2);
    assert.equal(
      refused.stderr,
      `error: MiniCluster ${namespace}/batch does not serve the RESTful API (its Flux container has a command, or it is interactive without fluxRestful); create one without a command, or with spec.fluxRestful\n`,
    );

    const configMaps = JSON.stringify((await clients.core.listNamespacedConfigMap({ namespace })).items);
    const events = JSON.stringify((await clients.events.listNamespacedEvent({ namespace })).items);
    const logs = [...operator.logLines, ...next.logLines].join('\n');
    for (const needle of [first.token, peenut]) {
      assert.ok(!configMaps.includes(needle), 'a ConfigMap holds a credential');
      assert.ok(!events.includes(needle), 'an event holds a credential');
      assert.ok(!logs.includes(needle), 'a log line holds a credential');
    }

    // Once the spec no longer serves the API, its Service and credentials Secret go; the keys stay.
    await applyMiniCluster(clients, miniClusterObject(namespace, 'api', { ...spec, interactive: true }));
    const gone = (read: () => Promise<unknown>) => async () =>
      read().then(
        () => false,
        (error: unknown) => httpStatus(error) === 404,
      );
    await waitFor(
      gone(() => clients.core.readNamespacedSecret({ name: 'api-restful', namespace })),
      {
        what: 'the RESTful credentials Secret deleted',
      },
    );
    await waitFor(
      gone(() => clients.core.readNamespacedService({ name: 'api-restful', namespace })),
      {
        what: 'the RESTful Service deleted',
      },
    );
    assert.ok(await clients.core.readNamespacedSecret({ name: 'api-curve-cert', namespace }));
  });
});

// Kept for the cluster() call: a test file that runs alone still brings the cluster up.
void cluster;
