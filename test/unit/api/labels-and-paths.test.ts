import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  brokerSelectorLabels,
  commonLabels,
  RESERVED_LABEL_KEYS,
  selectorLabels,
  selectorString,
} from '../../../src/api/shared/labels.ts';
import { MiniClusterV1alpha1Schema } from '../../../src/api/v1alpha1/schema.ts';
import { isRfc3339DateTime, pointerToFieldPath } from '../../../src/api/shared/schema-errors.ts';

describe('labels', () => {
  it("selects one MiniCluster's network by our own label and the app name; its brokers by the component too", () => {
    assert.deepEqual(selectorLabels('flux-sample'), {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'flux-sample',
    });
    assert.deepEqual(brokerSelectorLabels('flux-sample'), {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'flux-sample',
      'app.kubernetes.io/component': 'broker',
    });
    assert.equal(
      selectorString('flux-sample'),
      'app.kubernetes.io/name=flux-minicluster,flux-framework.org/minicluster=flux-sample,app.kubernetes.io/component=broker',
    );
  });

  it('puts the selector, instance, component and manager on owned objects, all reserved', () => {
    const labels = commonLabels('flux-sample', 'broker');
    assert.deepEqual(labels, {
      'app.kubernetes.io/name': 'flux-minicluster',
      'flux-framework.org/minicluster': 'flux-sample',
      'app.kubernetes.io/instance': 'flux-sample',
      'app.kubernetes.io/component': 'broker',
      'app.kubernetes.io/managed-by': 'flux-operator',
    });
    for (const key of Object.keys(labels)) assert.ok(RESERVED_LABEL_KEYS.includes(key), key);
    assert.ok(RESERVED_LABEL_KEYS.includes('batch.kubernetes.io/job-completion-index'));
  });
});

describe('pointerToFieldPath', () => {
  const cases: [pointer: string, path: string][] = [
    ['', ''],
    ['/spec/size', 'spec.size'],
    ['/spec/containers/0/image', 'spec.containers[0].image'],
    ['/spec/containers/12/volumes/data/path', 'spec.containers[12].volumes[data].path'],
    ['/spec/pod/labels/app.kubernetes.io~1name', 'spec.pod.labels[app.kubernetes.io/name]'],
    ['/spec/pod/tolerations/1/operator', 'spec.pod.tolerations[1].operator'],
    ['/spec/containers/0/unknownField/deeper', 'spec.containers[0].unknownField.deeper'],
    ['/status/conditions/0/reason', 'status.conditions[0].reason'],
  ];
  for (const [pointer, path] of cases) {
    it(`${JSON.stringify(pointer)} -> ${JSON.stringify(path)}`, () => {
      assert.equal(pointerToFieldPath(MiniClusterV1alpha1Schema, pointer), path);
    });
  }
});

describe('isRfc3339DateTime', () => {
  it('accepts Kubernetes timestamps and rejects the rest', () => {
    assert.ok(isRfc3339DateTime('2026-01-01T00:00:00Z'));
    assert.ok(isRfc3339DateTime('2026-01-01T00:00:00.123+02:00'));
    assert.ok(!isRfc3339DateTime('2026-01-01'));
    assert.ok(!isRfc3339DateTime('2026-13-45T00:00:00Z'));
    assert.ok(!isRfc3339DateTime('yesterday'));
  });
});
