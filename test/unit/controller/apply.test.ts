import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/index.ts';
import { asSent, modelTypeOf } from '../../../src/controller/apply.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted } from '../render/fixtures.ts';

/** JSON round trip: the value as it would be compared on the wire (no undefined, no prototypes). */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('what the client sends for an object', () => {
  it('names model types of built-in kinds only', () => {
    assert.equal(modelTypeOf('batch/v1', 'Job'), 'V1Job');
    assert.equal(modelTypeOf('v1', 'ConfigMap'), 'V1ConfigMap');
    assert.equal(
      modelTypeOf('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      'V1CustomResourceDefinition',
    );
    assert.equal(modelTypeOf('flux-framework.org/v1alpha1', 'MiniCluster'), undefined);
  });

  it('keeps every field of the CRD, x-kubernetes-validations included', () => {
    const crd = miniClusterCrd();
    assert.deepEqual(json(asSent(crd as never)), json(crd));
  });

  it('keeps every field of every rendered object', () => {
    const miniCluster = defaulted({
      size: 2,
      maxSize: 4,
      pod: { resources: { cpu: 2 }, tolerations: [{ key: 'a', operator: 'Exists' }] },
      containers: [
        {
          image: IMAGE,
          command: 'hostname',
          cores: 2,
          securityContext: { privileged: true, addCapabilities: ['SYS_ADMIN'] },
          lifeCycle: { postStartExec: 'true' },
          volumes: { data: { path: '/data', emptyDir: true, emptyDirMedium: 'Memory' } },
        },
      ],
    });
    for (const object of renderMiniCluster(miniCluster, KEYS)) {
      assert.deepEqual(json(asSent(object)), json(object), `${object.kind} loses fields when sent`);
    }
  });
});
