import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import {
  TEMPLATE_SPEC_ANNOTATION,
  keepingLiveTemplate,
  templateSpecKey,
  withTemplateSpecKey,
} from '../../../../src/controllers/minicluster/job-template.ts';
import type { KubeObject } from '../../../../src/render/index.ts';

const spec = {
  size: 2,
  maxSize: 4,
  containers: [{ image: 'app', command: 'hostname' }],
  flux: { logLevel: 6 },
};

function renderedJob(command: string, key = templateSpecKey(spec)): KubeObject {
  return withTemplateSpecKey(
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'mc', namespace: 'ns', annotations: { kept: 'yes' } },
      spec: {
        parallelism: 3,
        completions: 3,
        template: { spec: { containers: [{ name: 'mc', image: 'app', command: [command] }] } },
      },
    } as KubeObject,
    key,
  );
}

function liveJob(command: string, key: string | undefined): V1Job {
  return {
    metadata: { name: 'mc', annotations: key === undefined ? {} : { [TEMPLATE_SPEC_ANNOTATION]: key } },
    spec: {
      parallelism: 2,
      template: {
        metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
        spec: {
          containers: [{ name: 'mc', image: 'app', command: [command], terminationMessagePath: '/dev/x' }],
        },
      },
    },
  } as V1Job;
}

describe('the spec key of a pod template', () => {
  it('is the same for the same spec whatever the order of its keys, and for any size', () => {
    const reordered = {
      flux: { logLevel: 6 },
      containers: [{ command: 'hostname', image: 'app' }],
      maxSize: 4,
      size: 2,
    };
    assert.equal(templateSpecKey(reordered), templateSpecKey(spec));
    assert.equal(templateSpecKey({ ...spec, size: 4 }), templateSpecKey(spec));
    assert.match(templateSpecKey(spec), /^[0-9a-f]{40}$/);
  });

  it('changes with any other field, nested or not, and with the order of a list', () => {
    const key = templateSpecKey(spec);
    assert.notEqual(templateSpecKey({ ...spec, maxSize: 5 }), key);
    assert.notEqual(templateSpecKey({ ...spec, flux: { logLevel: 7 } }), key);
    assert.notEqual(
      templateSpecKey({ ...spec, containers: [{ image: 'app', command: 'hostname', name: 'x' }] }),
      key,
    );
    const two = [{ image: 'a' }, { image: 'b' }];
    assert.notEqual(
      templateSpecKey({ containers: two }),
      templateSpecKey({ containers: [...two].reverse() }),
    );
  });

  it('is stamped on the Job only, beside its other annotations', () => {
    const job = renderedJob('hostname', 'k1');
    assert.deepEqual(job.metadata.annotations, { kept: 'yes', [TEMPLATE_SPEC_ANNOTATION]: 'k1' });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.equal(withTemplateSpecKey(configMap, 'k1'), configMap);
  });
});

describe('a running Job`s pod template', () => {
  it('is kept when the Job was made from the same spec: its size and annotations are the rendered ones', () => {
    const live = liveJob('uname', templateSpecKey(spec));
    const kept = keepingLiveTemplate(renderedJob('hostname'), live, false) as KubeObject & V1Job;
    assert.ok(kept);
    // The running template, but for the labels the Job controller added (the operator must not own them).
    assert.deepEqual(kept.spec?.template, { ...live.spec?.template, metadata: { labels: {} } });
    assert.equal(kept.spec?.parallelism, 3);
    assert.equal(kept.metadata.annotations?.[TEMPLATE_SPEC_ANNOTATION], templateSpecKey(spec));
  });

  it('is not kept when the rendered one is the running one already (the API server`s defaults aside)', () => {
    const live = liveJob('hostname', templateSpecKey(spec));
    assert.equal(keepingLiveTemplate(renderedJob('hostname'), live, true), undefined);
  });

  it('is not kept when the spec changed since: the rendered template goes to the API server', () => {
    const live = liveJob('uname', templateSpecKey({ ...spec, maxSize: 8 }));
    assert.equal(keepingLiveTemplate(renderedJob('hostname'), live, true), undefined);
  });

  it('of a Job an older build made (no key): kept only when the operator had seen the spec through', () => {
    const live = liveJob('uname', undefined);
    assert.ok(keepingLiveTemplate(renderedJob('hostname'), live, true));
    assert.equal(keepingLiveTemplate(renderedJob('hostname'), live, false), undefined);
  });

  it('is nothing to keep without a running Job, or for another kind', () => {
    assert.equal(keepingLiveTemplate(renderedJob('hostname'), undefined, true), undefined);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.equal(keepingLiveTemplate(configMap, liveJob('uname', undefined), true), undefined);
  });
});
