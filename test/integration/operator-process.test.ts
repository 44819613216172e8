import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withNamespace, waitFor } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  installCrd,
  miniClusterObject,
  scaleMiniCluster,
  waitForCondition,
} from '../harness/operator.ts';
import { spawnOperator } from '../harness/operator-process.ts';
import { SECRET_DATA_KEYS } from '../../src/api/index.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import { cluster } from '../harness/cluster.ts';

async function clients() {
  return apiClientsFor((await cluster()).kc);
}

const OWNED = 'app.kubernetes.io/managed-by=flux-operator';

async function children(namespace: string) {
  const api = await clients();
  const [jobs, services, configMaps, secrets] = await Promise.all([
    api.batch.listNamespacedJob({ namespace, labelSelector: OWNED }),
    api.core.listNamespacedService({ namespace, labelSelector: OWNED }),
    api.core.listNamespacedConfigMap({ namespace, labelSelector: OWNED }),
    api.core.listNamespacedSecret({ namespace, labelSelector: OWNED }),
  ]);
  return { jobs: jobs.items, services: services.items, configMaps: configMaps.items, secrets: secrets.items };
}

describe('the operator process', () => {
  it('converges after being killed mid-reconcile, with no duplicates and the same keys', async (t) => {
    await installCrd();
    const namespace = await withNamespace(t, 'kill');
    const api = await clients();
    const first = await spawnOperator(namespace);
    t.after(() => first.kill('SIGKILL'));
    await applyMiniCluster(api, miniClusterObject(namespace, 'phoenix', { size: 4, interactive: true }));
    // Kill as soon as the first objects exist: the pass is under way.
    await waitFor(async () => (await children(namespace)).configMaps.length > 0, {
      what: 'the first object',
      intervalMs: 10,
    });
    assert.equal(await first.kill('SIGKILL'), 'SIGKILL');
    const secretsAtKill = (await children(namespace)).secrets.map((secret) => [
      secret.metadata?.name,
      secret.data,
    ]);

    const second = await spawnOperator(namespace);
    t.after(() => second.kill('SIGTERM'));
    await waitForCondition(api, namespace, 'phoenix', 'Ready', 'True');
    const after = await children(namespace);
    assert.deepEqual(
      [after.jobs.length, after.services.length, after.configMaps.length, after.secrets.length],
      [1, 1, 1, 2],
    );
    const curve = Buffer.from(
      after.secrets.find((s) => s.metadata?.name === 'phoenix-curve-cert')?.data?.[
        SECRET_DATA_KEYS.curveCert
      ] ?? '',
      'base64',
    ).toString();
    const secretKey = /secret-key = "([^"]+)"/.exec(curve)?.[1] ?? 'missing';
    assert.equal(secretKey.length, 40);
    assert.ok(second.lines.length > 0);
    for (const line of [...first.lines, ...second.lines])
      assert.ok(!line.includes(secretKey), 'a log line holds the secret key');
    for (const [name, data] of secretsAtKill) {
      const now = after.secrets.find((secret) => secret.metadata?.name === name);
      assert.deepEqual(now?.data, data, `keys of ${String(name)} changed after the restart`);
    }
    assert.equal(await second.kill('SIGTERM'), 0);
  });

  it('with leader election, only the leader writes, and the other takes over when it stops', async (t) => {
    await installCrd();
    const namespace = await withNamespace(t, 'leader');
    const api = await clients();
    const election = ['--leader-elect', '--leader-election-namespace', namespace];
    const a = await spawnOperator(namespace, election);
    t.after(() => a.kill('SIGKILL'));
    const b = await spawnOperator(namespace, election);
    t.after(() => b.kill('SIGKILL'));
    const leader = await waitFor(
      () =>
        a.logged('leading: reconciling MiniClusters')
          ? a
          : b.logged('leading: reconciling MiniClusters')
            ? b
            : undefined,
      {
        what: 'one replica to lead',
      },
    );
    const follower = leader === a ? b : a;

    await applyMiniCluster(
      api,
      miniClusterObject(namespace, 'elected', { size: 2, maxSize: 4, interactive: true }),
    );
    await waitForCondition(api, namespace, 'elected', 'Ready', 'True');
    assert.equal(follower.logged('leading: reconciling MiniClusters'), false);
    const leaderIdentity = JSON.parse(
      leader.lines.find((line) => line.includes('"msg":"flux-operator starting"')) ?? '{}',
    ).identity;
    const lease = await api.coordination.readNamespacedLease({ name: 'flux-operator-leader', namespace });
    assert.equal(lease.spec?.holderIdentity, leaderIdentity);
    // The Ready event follows the status write that shows Ready.
    const events = await waitFor(
      async () => {
        const ours = (await api.events.listNamespacedEvent({ namespace })).items.filter(
          (event) => event.reportingController === 'flux-framework.org/flux-operator',
        );
        return ours.some((event) => event.reason === 'Ready') ? ours : false;
      },
      { what: 'the Ready event' },
    );
    assert.deepEqual([...new Set(events.map((event) => event.reportingInstance))], [leaderIdentity]);
    assert.equal(
      follower.lines.some((line) => line.includes('generated keys')),
      false,
    );

    // The leader serves its metrics and readiness; its writes show under the operator's own metric.
    const ports = JSON.parse(
      leader.lines.find((line) => line.includes('"msg":"flux-operator starting"')) ?? '{}',
    ) as {
      metricsPort: number;
      healthPort: number;
    };
    const metrics = await (await fetch(`http://127.0.0.1:${ports.metricsPort}/metrics`)).text();
    assert.match(
      metrics,
      /^controller_runtime_reconcile_total\{controller="minicluster",result="success"\} [1-9]/m,
    );
    assert.match(metrics, /^flux_operator_api_writes_total\{verb="apply",resource="jobs"\} 1$/m);
    // Every named step of a pass is timed: the apply step ran at least once, under its own name.
    assert.match(
      metrics,
      /^flux_operator_reconcile_step_duration_seconds_count\{controller="minicluster",step="apply"\} [1-9]/m,
    );
    assert.match(metrics, /^leader_election_master_status\{name="flux-operator-leader"\} 1$/m);
    assert.equal((await fetch(`http://127.0.0.1:${ports.healthPort}/readyz`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${ports.healthPort}/healthz`)).status, 200);

    // A clean stop releases the lease at once: the follower leads and handles the next change.
    assert.equal(await leader.kill('SIGTERM'), 0);
    await waitFor(() => follower.logged('leading: reconciling MiniClusters'), {
      what: 'the follower to take over',
      timeoutMs: 30_000,
    });
    await scaleMiniCluster(api, namespace, 'elected', 4);
    await waitFor(
      async () => (await api.batch.readNamespacedJob({ name: 'elected', namespace })).spec?.parallelism === 4,
      {
        what: 'the new leader to scale the Job',
      },
    );
  });
});
