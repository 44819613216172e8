// A running MiniCluster across an operator upgrade: the Job's pod template cannot change, and a new
// build may render another one from the same spec. The Job an "older build" made is simulated: the
// operator's own Job, made again with one more variable in its template and without the spec key
// this build stamps, while the operator is stopped. Every call has a timeout (the harness's waitFor,
// the transport's).
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { TEMPLATE_SPEC_ANNOTATION } from '../../src/controllers/minicluster/job-template.ts';
import { waitFor, withNamespace } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  conditionOf,
  miniClusterObject,
  readStatus,
  scaleMiniCluster,
  startOperator,
  waitForCondition,
} from '../harness/operator.ts';

const NAME = 'upgraded';
const OLD_BUILD_VARIABLE = { name: 'RENDERED_BY', value: 'an older operator build' };

/** The Job as an older build would have made it: this build's, one variable more, no spec key. */
function olderBuildJob(job: V1Job): V1Job {
  const controllerLabels = ['batch.kubernetes.io/controller-uid', 'controller-uid'];
  const without = (map: Record<string, string> | undefined, keys: readonly string[]) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => !keys.includes(key)));
  const template = structuredClone(job.spec?.template);
  assert.ok(template?.spec && job.spec);
  template.metadata = { ...template.metadata, labels: without(template.metadata?.labels, controllerLabels) };
  const [first, ...rest] = template.spec.containers;
  assert.ok(first);
  template.spec.containers = [{ ...first, env: [...(first.env ?? []), OLD_BUILD_VARIABLE] }, ...rest];
  const annotations = without(job.metadata?.annotations, [TEMPLATE_SPEC_ANNOTATION]);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: job.metadata?.name ?? NAME,
      namespace: job.metadata?.namespace ?? '',
      labels: job.metadata?.labels ?? {},
      annotations,
      ownerReferences: job.metadata?.ownerReferences ?? [],
    },
    // The same Job spec but for the template; its selector is the Job controller's (the old Job's uid).
    spec: { ...job.spec, selector: undefined, manualSelector: undefined, template },
  };
}

function hasOldVariable(job: V1Job): boolean {
  return (job.spec?.template.spec?.containers[0]?.env ?? []).some(
    (variable) => variable.name === OLD_BUILD_VARIABLE.name,
  );
}

async function runningUpgradedMiniCluster(t: TestContext) {
  const namespace = await withNamespace(t, 'job-template');
  const first = await startOperator(namespace);
  const { clients } = first;
  await applyMiniCluster(
    clients,
    miniClusterObject(namespace, NAME, { size: 2, maxSize: 4, interactive: true }),
  );
  await waitForCondition(clients, namespace, NAME, 'Ready', 'True');
  const made = await clients.batch.readNamespacedJob({ name: NAME, namespace });
  assert.ok(made.metadata?.annotations?.[TEMPLATE_SPEC_ANNOTATION], 'this build stamps the spec key');
  await first.stop();

  // The older build's Job in its place.
  await clients.batch.deleteNamespacedJob({ name: NAME, namespace, propagationPolicy: 'Background' });
  await waitFor(
    () =>
      clients.batch.readNamespacedJob({ name: NAME, namespace }).then(
        () => false,
        () => true,
      ),
    { what: 'the Job gone' },
  );
  await clients.batch.createNamespacedJob({ namespace, body: olderBuildJob(made) });

  const operator = await startOperator(namespace);
  t.after(() => operator.stop());
  return { namespace, operator, clients };
}

describe('a running Job across an operator upgrade', { concurrency: 2 }, () => {
  it('keeps the template an older build made from the same spec, takes the spec key and a scale, and says recreate on a spec change', async (t) => {
    const { namespace, clients } = await runningUpgradedMiniCluster(t);
    const readJob = () => clients.batch.readNamespacedJob({ name: NAME, namespace });

    // The new build's first pass: the key stamped on the Job, the template left as it was.
    const stamped = await waitFor(
      async () => {
        const job = await readJob();
        return job.metadata?.annotations?.[TEMPLATE_SPEC_ANNOTATION] ? job : false;
      },
      { what: 'the spec key on the older build`s Job' },
    );
    assert.ok(hasOldVariable(stamped), 'the template is the older build`s');
    const status = await readStatus(clients, namespace, NAME);
    assert.notEqual(conditionOf(status, 'Ready')?.reason, 'SpecChangeNeedsRecreate', JSON.stringify(status));

    // A scale is no spec change as far as the template goes.
    await scaleMiniCluster(clients, namespace, NAME, 3);
    const scaled = await waitFor(
      async () => {
        const job = await readJob();
        return job.spec?.parallelism === 3 ? job : false;
      },
      { what: 'the Job scaled to 3' },
    );
    assert.ok(hasOldVariable(scaled), 'still the older build`s template');
    await waitForCondition(clients, namespace, NAME, 'Ready', 'True');

    // A change of the template's own inputs: the API server refuses the new template; the status says why.
    await applyMiniCluster(
      clients,
      miniClusterObject(namespace, NAME, {
        size: 3,
        maxSize: 4,
        interactive: true,
        containers: [
          { image: 'ghcr.io/flux-framework/flux-restful-api:latest', environment: { CHANGED: 'yes' } },
        ],
      }),
    );
    const refused = await waitFor(
      async () => {
        const now = await readStatus(clients, namespace, NAME);
        return conditionOf(now, 'Ready')?.reason === 'SpecChangeNeedsRecreate' ? now : false;
      },
      { what: 'Ready=False SpecChangeNeedsRecreate after a spec change' },
    );
    assert.match(conditionOf(refused, 'Ready')?.message ?? '', /delete and recreate the MiniCluster/);
  });
});
