import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import {
  RECONCILE_STEP_BUCKETS,
  RECONCILE_TIME_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
  createOperatorMetrics,
} from '../../../src/observability/metrics.ts';
import { at } from './fixtures.ts';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

async function metric(registry: Registry, name: string): Promise<MetricJson> {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  assert.ok(found, `metric ${name} is registered`);
  return found;
}

/** The value of one series, by exact label set. */
async function valueOf(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = await metric(registry, name);
  const series = m.values.filter((v) => {
    const own = v.labels as Record<string, string | number>;
    const keys = Object.keys(own).filter((k) => k !== 'le');
    return keys.length === Object.keys(labels).length && keys.every((k) => String(own[k]) === labels[k]);
  });
  assert.equal(series.length, 1, `${name}${JSON.stringify(labels)}: exactly one series`);
  return at(series, 0).value;
}

/** Bucket counts of a histogram series from the text format, as { le: count }. */
async function buckets(registry: Registry, name: string, selector: string): Promise<Map<string, number>> {
  const text = await registry.metrics();
  const result = new Map<string, number>();
  const pattern = new RegExp(`^${name}_bucket\\{le="([^"]+)",${selector}\\} (\\d+)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (match?.[1] !== undefined) result.set(match[1], Number(match[2]));
  }
  return result;
}

/** name -> [type, label names], as controller-runtime and client-go register them. */
const EXPECTED: Record<string, [string, string[]]> = {
  controller_runtime_reconcile_total: ['counter', ['controller', 'result']],
  controller_runtime_reconcile_errors_total: ['counter', ['controller']],
  controller_runtime_reconcile_time_seconds: ['histogram', ['controller']],
  controller_runtime_max_concurrent_reconciles: ['gauge', ['controller']],
  controller_runtime_active_workers: ['gauge', ['controller']],
  workqueue_depth: ['gauge', ['controller', 'name', 'priority']],
  workqueue_adds_total: ['counter', ['controller', 'name']],
  workqueue_retries_total: ['counter', ['controller', 'name']],
  workqueue_queue_duration_seconds: ['histogram', ['controller', 'name']],
  workqueue_work_duration_seconds: ['histogram', ['controller', 'name']],
  workqueue_unfinished_work_seconds: ['gauge', ['controller', 'name']],
  workqueue_longest_running_processor_seconds: ['gauge', ['controller', 'name']],
  leader_election_master_status: ['gauge', ['name']],
  rest_client_requests_total: ['counter', ['code', 'host', 'method']],
  flux_operator_api_writes_total: ['counter', ['resource', 'verb']],
  flux_operator_miniclusters: ['gauge', ['phase']],
  flux_operator_miniclusters_created_total: ['counter', []],
  flux_operator_reconcile_apply_total: ['counter', ['kind', 'result']],
  flux_operator_reconcile_step_duration_seconds: ['histogram', ['controller', 'step']],
  flux_operator_pods_running: ['gauge', []],
  flux_operator_flux_jobs: ['gauge', ['name', 'namespace', 'state']],
  flux_operator_flux_nodes: ['gauge', ['name', 'namespace', 'state']],
};

/** One observation on every family, so each has a series whose labels can be read back. */
function exerciseAll(m: ReturnType<typeof createOperatorMetrics>): void {
  m.registerController('minicluster', 4);
  m.observeReconcile('minicluster', 'success', 0.2);
  m.setActiveWorkers('minicluster', 2);
  m.setQueueDepth('minicluster', 3);
  m.countQueueAdd('minicluster');
  m.countQueueRetry('minicluster');
  m.observeQueueWait('minicluster', 0.001);
  m.observeQueueWork('minicluster', 0.5);
  m.setQueueInProgress('minicluster', 1.5, 0.75);
  m.setLeader('flux-operator-lock', true);
  m.observeRequest(
    { method: 'PATCH', path: '/apis/batch/v1/namespaces/ns/jobs/j', contentType: APPLY, code: 200 },
    'api:6443',
  );
  m.setMiniClusters({ Ready: 1 });
  m.countMiniClusterCreated();
  m.countApply('Job', 'created');
  m.observeReconcileStep('minicluster', 'apply', 0.002);
  m.setPodsRunning(4);
  m.setFluxQueue('default', 'elastic', QUEUE);
}

const QUEUE = {
  jobs: { pending: 3, running: 1 },
  nodes: { up: 2, down: 2, allocated: 1, free: 1, draining: 0, drained: 1 },
};

describe('createOperatorMetrics', () => {
  it('registers every family with the name, type and labels controller-runtime uses', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    exerciseAll(m);
    const all = await m.registry.getMetricsAsJSON();
    assert.deepEqual(all.map((x) => x.name).sort(), Object.keys(EXPECTED).sort());
    for (const [name, [type, labels]] of Object.entries(EXPECTED)) {
      const found = all.find((x) => x.name === name);
      assert.ok(found, `${name} is registered`);
      assert.equal(found.type, type, `${name} type`);
      assert.ok(found.values.length > 0, `${name} has a series`);
      for (const value of found.values) {
        const names = Object.keys(value.labels)
          .filter((k) => k !== 'le')
          .sort();
        assert.deepEqual(names, labels, `${name} labels`);
      }
    }
  });

  it('writes the Prometheus text format with TYPE lines', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    exerciseAll(m);
    const text = await m.registry.metrics();
    assert.match(text, /^# TYPE controller_runtime_reconcile_total counter$/m);
    assert.match(text, /^# TYPE controller_runtime_reconcile_time_seconds histogram$/m);
    assert.match(
      text,
      /^controller_runtime_reconcile_total\{controller="minicluster",result="success"\} 1$/m,
    );
    assert.match(text, /^workqueue_depth\{name="minicluster",controller="minicluster",priority=""\} 3$/m);
    assert.match(text, /^flux_operator_pods_running 4$/m);
  });

  it('registers the default process metrics unless asked not to', async () => {
    const withDefaults = createOperatorMetrics();
    const text = await withDefaults.registry.metrics();
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.match(text, /^process_cpu_seconds_total /m);
    assert.match(text, /^nodejs_heap_size_used_bytes /m);

    const without = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    assert.doesNotMatch(await without.registry.metrics(), /process_resident_memory_bytes/);
  });

  it('keeps registries apart', async () => {
    const a = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    const b = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    a.countMiniClusterCreated();
    assert.equal(await valueOf(a.registry, 'flux_operator_miniclusters_created_total'), 1);
    assert.equal(await valueOf(b.registry, 'flux_operator_miniclusters_created_total'), 0);
  });
});

describe('reconcile metrics', () => {
  it('starts a registered controller at zero for every result, as controller-runtime does', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.registerController('minicluster', 8);
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      assert.equal(
        await valueOf(m.registry, 'controller_runtime_reconcile_total', {
          controller: 'minicluster',
          result,
        }),
        0,
      );
    }
    assert.equal(
      await valueOf(m.registry, 'controller_runtime_reconcile_errors_total', { controller: 'minicluster' }),
      0,
    );
    assert.equal(
      await valueOf(m.registry, 'controller_runtime_max_concurrent_reconciles', {
        controller: 'minicluster',
      }),
      8,
    );
    assert.equal(
      await valueOf(m.registry, 'controller_runtime_active_workers', { controller: 'minicluster' }),
      0,
    );
  });

  it('counts results, and errors also in the errors counter', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.observeReconcile('minicluster', 'success', 0.01);
    m.observeReconcile('minicluster', 'success', 0.02);
    m.observeReconcile('minicluster', 'error', 0.03);
    m.observeReconcile('minicluster', 'requeue_after', 0.04);
    const total = (result: string) =>
      valueOf(m.registry, 'controller_runtime_reconcile_total', { controller: 'minicluster', result });
    assert.equal(await total('success'), 2);
    assert.equal(await total('error'), 1);
    assert.equal(await total('requeue_after'), 1);
    assert.equal(
      await valueOf(m.registry, 'controller_runtime_reconcile_errors_total', { controller: 'minicluster' }),
      1,
    );
  });

  it("uses controller-runtime's reconcile buckets and lands observations in them", async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.observeReconcile('minicluster', 'success', 0.2);
    m.observeReconcile('minicluster', 'success', 0.21);
    m.observeReconcile('minicluster', 'success', 61);
    const counts = await buckets(
      m.registry,
      'controller_runtime_reconcile_time_seconds',
      'controller="minicluster"',
    );
    assert.deepEqual(
      [...counts.keys()],
      [...RECONCILE_TIME_BUCKETS.map(String), '+Inf'],
      'one bucket per controller-runtime bound, then +Inf',
    );
    assert.equal(RECONCILE_TIME_BUCKETS.length, 40);
    assert.equal(counts.get('0.15'), 0);
    assert.equal(counts.get('0.2'), 1, 'le is inclusive');
    assert.equal(counts.get('0.25'), 2);
    assert.equal(counts.get('60'), 2, '61 s is above the last bound');
    assert.equal(counts.get('+Inf'), 3);
    const text = await m.registry.metrics();
    assert.match(text, /^controller_runtime_reconcile_time_seconds_sum\{controller="minicluster"\} 61\.41$/m);
    assert.match(text, /^controller_runtime_reconcile_time_seconds_count\{controller="minicluster"\} 3$/m);
  });

  it('times each reconcile step apart, by controller and step name', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.observeReconcileStep('minicluster', 'validate', 0.00005);
    m.observeReconcileStep('minicluster', 'apply', 0.03);
    m.observeReconcileStep('minicluster', 'apply', 0.002);
    const name = 'flux_operator_reconcile_step_duration_seconds';
    const apply = await buckets(m.registry, name, 'controller="minicluster",step="apply"');
    const validate = await buckets(m.registry, name, 'controller="minicluster",step="validate"');
    assert.deepEqual([...apply.keys()], [...RECONCILE_STEP_BUCKETS.map(String), '+Inf']);
    assert.deepEqual(
      [apply.get('0.001'), apply.get('0.0025'), apply.get('0.025'), apply.get('0.05'), apply.get('+Inf')],
      [0, 1, 1, 2, 2],
    );
    assert.deepEqual([validate.get('0.0001'), validate.get('+Inf')], [1, 1]);
    assert.throws(() => m.observeReconcileStep('minicluster', 'apply', -1), RangeError);
  });

  it('rejects negative or non-finite values', () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    assert.throws(() => m.observeReconcile('minicluster', 'success', -1), RangeError);
    assert.throws(() => m.setQueueDepth('minicluster', Number.NaN), RangeError);
    assert.throws(() => m.setPodsRunning(-2), RangeError);
  });
});

describe('workqueue metrics', () => {
  it('labels every series name = controller = the queue, as controller-runtime does', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.setQueueDepth('minicluster', 5);
    m.setQueueDepth('minicluster', 2);
    m.countQueueAdd('minicluster');
    m.countQueueAdd('minicluster');
    m.countQueueRetry('minicluster');
    const labels = { name: 'minicluster', controller: 'minicluster' };
    assert.equal(await valueOf(m.registry, 'workqueue_depth', { ...labels, priority: '' }), 2);
    assert.equal(await valueOf(m.registry, 'workqueue_adds_total', labels), 2);
    assert.equal(await valueOf(m.registry, 'workqueue_retries_total', labels), 1);
  });

  it("uses client-go's decade buckets from 10ns to 1000s", async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.observeQueueWait('minicluster', 0.0005);
    m.observeQueueWork('minicluster', 2);
    const selector = 'name="minicluster",controller="minicluster"';
    const wait = await buckets(m.registry, 'workqueue_queue_duration_seconds', selector);
    assert.deepEqual([...wait.keys()], [...WORKQUEUE_DURATION_BUCKETS.map(String), '+Inf']);
    assert.equal(WORKQUEUE_DURATION_BUCKETS.length, 12);
    assert.equal(wait.get('0.0001'), 0);
    assert.equal(wait.get('0.001'), 1);
    const work = await buckets(m.registry, 'workqueue_work_duration_seconds', selector);
    assert.equal(work.get('1'), 0);
    assert.equal(work.get('10'), 1);
  });

  it('sets the in-progress gauges', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.setQueueInProgress('minicluster', 3.5, 2);
    const labels = { name: 'minicluster', controller: 'minicluster' };
    assert.equal(await valueOf(m.registry, 'workqueue_unfinished_work_seconds', labels), 3.5);
    assert.equal(await valueOf(m.registry, 'workqueue_longest_running_processor_seconds', labels), 2);
  });
});

describe('leader election and API call metrics', () => {
  it('sets leader_election_master_status to 1 and back to 0', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.setLeader('flux-operator', true);
    assert.equal(await valueOf(m.registry, 'leader_election_master_status', { name: 'flux-operator' }), 1);
    m.setLeader('flux-operator', false);
    assert.equal(await valueOf(m.registry, 'leader_election_master_status', { name: 'flux-operator' }), 0);
  });

  it('counts requests by code, HTTP method and host, and writes by verb and resource', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false, apiHost: '10.0.0.1:6443' });
    const call = (method: string, path: string, code: number | undefined, contentType?: string) => ({
      method,
      path,
      contentType,
      code,
    });
    m.observeRequest(call('PATCH', '/apis/batch/v1/namespaces/ns/jobs/j', 200, APPLY));
    m.observeRequest(call('PATCH', '/api/v1/namespaces/ns/services/s', 200, APPLY));
    m.observeRequest(
      call('PATCH', '/apis/flux-framework.org/v1alpha2/namespaces/ns/miniclusters/m/status', 200, MERGE),
    );
    m.observeRequest(call('POST', '/api/v1/namespaces/ns/secrets', 409, 'application/json'));
    m.observeRequest(call('DELETE', '/api/v1/namespaces/ns/pods/p', 404), 'other:443');
    m.observeRequest(call('GET', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', 200));
    m.observeRequest(call('GET', '/api/v1/namespaces/ns/pods', undefined));
    const requests = (code: string, method: string, host = '10.0.0.1:6443') =>
      valueOf(m.registry, 'rest_client_requests_total', { code, method, host });
    assert.equal(await requests('200', 'PATCH'), 3);
    assert.equal(await requests('409', 'POST'), 1);
    assert.equal(await requests('404', 'DELETE', 'other:443'), 1);
    assert.equal(await requests('200', 'GET'), 1);
    assert.equal(await requests('<error>', 'GET'), 1, 'no response: client-go\'s "<error>" code');

    const writes = (verb: string, resource: string) =>
      valueOf(m.registry, 'flux_operator_api_writes_total', { verb, resource });
    assert.equal(await writes('apply', 'jobs'), 1);
    assert.equal(await writes('apply', 'services'), 1);
    assert.equal(await writes('patch', 'miniclusters/status'), 1);
    assert.equal(await writes('create', 'secrets'), 1, 'a failed write still reached the server');
    assert.equal(await writes('delete', 'pods'), 1);
    const all = await metric(m.registry, 'flux_operator_api_writes_total');
    assert.equal(
      all.values.reduce((sum, v) => sum + v.value, 0),
      5,
      'reads are not writes',
    );
  });

  it('counts each request the transport observed, and its write, once answered and not a dry run', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false, apiHost: '10.0.0.1:6443' });
    m.observeRequest({
      method: 'PATCH',
      path: '/apis/batch/v1/namespaces/ns/jobs/j',
      contentType: APPLY,
      code: 200,
    });
    m.observeRequest({
      method: 'PATCH',
      path: '/api/v1/namespaces/ns/services/s?dryRun=All',
      contentType: APPLY,
      code: 200,
    });
    m.observeRequest({
      method: 'POST',
      path: '/api/v1/namespaces/ns/secrets',
      contentType: 'application/json',
      code: 409,
    });
    m.observeRequest({
      method: 'DELETE',
      path: '/api/v1/namespaces/ns/secrets/s',
      contentType: undefined,
      code: undefined,
    });
    m.observeRequest(
      { method: 'GET', path: '/api/v1/namespaces/ns/pods', contentType: undefined, code: 200 },
      'other:443',
    );
    const requests = (code: string, method: string, host = '10.0.0.1:6443') =>
      valueOf(m.registry, 'rest_client_requests_total', { code, method, host });
    assert.equal(await requests('200', 'PATCH'), 2, 'a dry run is a request');
    assert.equal(await requests('409', 'POST'), 1);
    assert.equal(await requests('<error>', 'DELETE'), 1);
    assert.equal(await requests('200', 'GET', 'other:443'), 1);
    const writes = await metric(m.registry, 'flux_operator_api_writes_total');
    assert.deepEqual(
      writes.values.map((v) => `${v.labels.verb} ${v.labels.resource} ${v.value}`).sort(),
      ['apply jobs 1', 'create secrets 1'],
      'no dry run, no read, nothing unanswered',
    );
  });
});

describe('domain metrics', () => {
  it('starts every MiniCluster phase at zero and zeroes phases that empty', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    const phase = (p: string) => valueOf(m.registry, 'flux_operator_miniclusters', { phase: p });
    for (const p of ['Pending', 'Starting', 'Ready', 'Succeeded', 'Failed']) assert.equal(await phase(p), 0);
    m.setMiniClusters({ Ready: 3, Pending: 1, Unknown: 2 });
    assert.equal(await phase('Ready'), 3);
    assert.equal(await phase('Pending'), 1);
    assert.equal(await phase('Unknown'), 2);
    m.setMiniClusters({ Ready: 4 });
    assert.equal(await phase('Ready'), 4);
    assert.equal(await phase('Pending'), 0);
    assert.equal(await phase('Unknown'), 0);
  });

  it('counts created MiniClusters, applies by kind and result, and running pods', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.countMiniClusterCreated();
    m.countMiniClusterCreated();
    m.countApply('Job', 'created');
    m.countApply('Job', 'unchanged');
    m.countApply('Job', 'unchanged');
    m.countApply('Secret', 'error');
    m.setPodsRunning(7);
    assert.equal(await valueOf(m.registry, 'flux_operator_miniclusters_created_total'), 2);
    assert.equal(
      await valueOf(m.registry, 'flux_operator_reconcile_apply_total', { kind: 'Job', result: 'unchanged' }),
      2,
    );
    assert.equal(
      await valueOf(m.registry, 'flux_operator_reconcile_apply_total', { kind: 'Job', result: 'created' }),
      1,
    );
    assert.equal(
      await valueOf(m.registry, 'flux_operator_reconcile_apply_total', { kind: 'Secret', result: 'error' }),
      1,
    );
    assert.equal(await valueOf(m.registry, 'flux_operator_pods_running'), 7);
  });

  it('carries the Flux queue of each read MiniCluster by state, and forgets it', async () => {
    const m = createOperatorMetrics(new Registry(), { defaultMetrics: false });
    m.setFluxQueue('default', 'elastic', QUEUE);
    m.setFluxQueue('other', 'small', { ...QUEUE, jobs: { pending: 0, running: 2 } });
    const of = (metric: string, namespace: string, name: string, state: string) =>
      valueOf(m.registry, metric, { namespace, name, state });
    assert.equal(await of('flux_operator_flux_jobs', 'default', 'elastic', 'pending'), 3);
    assert.equal(await of('flux_operator_flux_jobs', 'other', 'small', 'running'), 2);
    assert.equal(await of('flux_operator_flux_nodes', 'default', 'elastic', 'drained'), 1);
    assert.equal(await of('flux_operator_flux_nodes', 'default', 'elastic', 'down'), 2);
    m.setFluxQueue('default', 'elastic', undefined);
    const text = await m.registry.metrics();
    assert.doesNotMatch(text, /name="elastic"/);
    assert.match(text, /^flux_operator_flux_jobs\{namespace="other",name="small",state="running"\} 2$/m);
    assert.throws(
      () => m.setFluxQueue('a', 'b', { ...QUEUE, jobs: { pending: -1, running: 0 } }),
      /flux jobs pending must be a finite number >= 0/,
    );
  });
});
