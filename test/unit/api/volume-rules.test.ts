import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { SHM_MOUNT_PATH } from '../../../src/api/shared/shm-cel.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { OPERATOR_MOUNT_PATHS, OPERATOR_VOLUME_NAME_PREFIX } from '../../../src/api/shared/volume-cel.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { fluxContainer, miniCluster } from './fixtures.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';

const KEYS = {
  curveCertificate: 'certificate',
  mungeKey: new Uint8Array(1024),
  restfulSeed: new Uint8Array(32),
};

/** The Job of a MiniCluster whose Flux container has every operator mount (R written by the operator). */
function renderedJob(): V1Job {
  const result = validateMiniClusterV1alpha1(miniCluster({ containers: [fluxContainer({ cores: 2 })] }));
  assert.ok(result.ok);
  return renderMiniCluster(defaultedToV1alpha2(result.value), KEYS).find(
    (object) => object.kind === 'Job',
  ) as V1Job;
}

describe('the operator-owned volumes the validator keeps users off', () => {
  it('are the mount paths render gives the Flux container, but /dev/shm, which a volume of its own takes', () => {
    const [container] = renderedJob().spec?.template.spec?.containers ?? [];
    assert.deepEqual(
      (container?.volumeMounts ?? []).map((mount) => mount.mountPath).sort(),
      [...OPERATOR_MOUNT_PATHS, SHM_MOUNT_PATH].sort(),
    );
    assert.equal(OPERATOR_MOUNT_PATHS.includes(SHM_MOUNT_PATH), false);
  });

  it('are the volume names render gives its own volumes', () => {
    const volumes = renderedJob().spec?.template.spec?.volumes ?? [];
    assert.ok(volumes.length > 0);
    for (const volume of volumes) assert.ok(volume.name.startsWith(OPERATOR_VOLUME_NAME_PREFIX), volume.name);
  });
});
