import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import {
  STOP_DEADLINE_SECONDS,
  STOPPED_ANNOTATION,
  stopReason,
  stoppedBecause,
  withStoppedJob,
} from '../../../../src/controllers/minicluster/stopped-job.ts';
import type { KubeObject } from '../../../../src/render/index.ts';

const BECAUSE =
  'init container flux-view of pod flux-sample-1-abcde exited with status 128, so its broker never started';

const rendered: KubeObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: 'flux-sample',
    namespace: 'default',
    annotations: { 'flux-framework.org/pod-template-spec': 'k' },
  },
  spec: { activeDeadlineSeconds: 31_500_000, backoffLimit: 0, template: {} },
} as KubeObject;

function live(
  conditions: { type: string; status: string }[] = [],
  annotations?: Record<string, string>,
): V1Job {
  return {
    metadata: { name: 'flux-sample', ...(annotations ? { annotations } : {}) },
    spec: { template: {} },
    status: { conditions },
  };
}

describe('a Job stopped because its pods can never start a broker', () => {
  it('is stopped for pods kept out while it runs, and not before it exists or after it ended', () => {
    assert.equal(stopReason(live(), BECAUSE), BECAUSE);
    assert.equal(stopReason(live(), undefined), undefined);
    assert.equal(stopReason(undefined, BECAUSE), undefined);
    assert.equal(stopReason(live([{ type: 'Complete', status: 'True' }]), BECAUSE), undefined);
    assert.equal(stopReason(live([{ type: 'Failed', status: 'True' }]), BECAUSE), undefined);
    assert.equal(stopReason(live([{ type: 'SuccessCriteriaMet', status: 'True' }]), BECAUSE), undefined);
    assert.equal(stopReason(live([{ type: 'Failed', status: 'False' }]), BECAUSE), BECAUSE);
  });

  it('stays stopped for what it was stopped for, once its pods are gone and it failed', () => {
    const stopped = live([{ type: 'Failed', status: 'True' }], { [STOPPED_ANNOTATION]: BECAUSE });
    assert.equal(stoppedBecause(stopped), BECAUSE);
    assert.equal(stopReason(stopped, undefined), BECAUSE);
    assert.equal(stopReason(stopped, 'another reason'), BECAUSE);
  });

  it('gets the least deadline the API takes and the words, keeping the rest of the Job', () => {
    const stopped = withStoppedJob(rendered, BECAUSE) as KubeObject & V1Job;
    assert.equal(stopped.spec?.activeDeadlineSeconds, STOP_DEADLINE_SECONDS);
    assert.ok(STOP_DEADLINE_SECONDS >= 1, 'the API refuses a deadline of 0');
    assert.deepEqual(stopped.metadata.annotations, {
      ...rendered.metadata.annotations,
      [STOPPED_ANNOTATION]: BECAUSE,
    });
    assert.equal(stopped.spec?.backoffLimit, 0);
    assert.equal(stopped.spec?.template, (rendered as KubeObject & V1Job).spec?.template);
    // Untouched: no reason, or not a Job.
    assert.equal(withStoppedJob(rendered, undefined), rendered);
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'flux-sample' } } as KubeObject;
    assert.equal(withStoppedJob(service, BECAUSE), service);
  });
});
