// The v1alpha2 validator: a MiniCluster setting every field validates, and each bad input of the
// table is refused with the field path and a message saying what to do (the same table goes to the
// API server in test/integration/v1alpha2-crd.test.ts, whose CEL twins must refuse it too).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from '../../../src/api/shared/problems.ts';
import { applyDefaults } from '../../../src/api/defaults.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import type { MiniClusterSpec } from '../../../src/api/schema.ts';
import { DEFAULT_FLUX_VIEW_IMAGE } from '../../../src/api/go-defaults.ts';
import {
  APP_IMAGE,
  assertProblemsV1alpha2,
  connectedV1alpha2,
  everyFieldV1alpha2,
  hostlistV1alpha2,
  joiningV1alpha2,
  miniClusterV1alpha2,
  restfulV1alpha2,
} from './v1alpha2-fixtures.ts';
import { V1ALPHA2_BAD_CASES } from './v1alpha2-cases.ts';

describe('validateMiniCluster', () => {
  it('accepts MiniClusters that set every field (lead, RESTful, joining, connected, hostlist)', () => {
    for (const miniCluster of [
      everyFieldV1alpha2(),
      restfulV1alpha2(),
      joiningV1alpha2(),
      connectedV1alpha2(),
      hostlistV1alpha2(),
    ]) {
      const result = validateMiniCluster(miniCluster);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    }
  });

  it('accepts a pod.shmSize within the memory limits, 0 with hostIPC, and beyond a sidecar limit', () => {
    const flux = { image: APP_IMAGE, command: 'hostname', runFlux: true };
    for (const spec of [
      { pod: { shmSize: '1Gi' }, containers: [{ ...flux, resources: { limits: { memory: '1Gi' } } }] },
      { pod: { shmSize: 1073741824, resources: { memory: '1Gi' } } },
      { pod: { shmSize: '64Mi' } },
      { pod: { shmSize: 0, hostIPC: true } },
      { pod: { shmSize: '0', hostIPC: true } },
      { pod: { hostIPC: true } },
      {
        // Only the Flux container's limit bounds it: its jobs write there (a sidecar's is its own business).
        pod: { shmSize: '4Gi' },
        containers: [
          { ...flux, resources: { limits: { memory: '8Gi' } } },
          { name: 'sidecar', image: APP_IMAGE, resources: { limits: { memory: '128Mi' } } },
        ],
      },
    ] satisfies Partial<MiniClusterSpec>[]) {
      const result = validateMiniCluster(miniClusterV1alpha2(spec));
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    }
  });

  for (const { name, input, problems } of V1ALPHA2_BAD_CASES) {
    it(`refuses ${name}`, () => assertProblemsV1alpha2(input, problems));
  }

  it('never throws on inputs of any shape', () => {
    for (const input of [
      null,
      3,
      'x',
      [],
      {},
      { spec: [] },
      { ...miniClusterV1alpha2(), spec: { containers: 'x' } },
    ]) {
      const result = validateMiniCluster(input);
      assert.equal(result.ok, false);
    }
  });
});

describe('applyDefaults', () => {
  it("gives the Go operator's defaults, and the view image of the operator's setting", () => {
    const spec = applyDefaults({ containers: [{ command: 'hostname' }] }, 'sample', {
      fluxViewImage: 'localhost/flux-view:0.88.0',
    });
    assert.equal(spec.size, 1);
    assert.equal(spec.maxSize, 1);
    assert.equal(spec.tasks, 1);
    assert.equal(spec.logging.strict, false);
    assert.equal(spec.flux.logLevel, 6);
    assert.equal(spec.flux.connectTimeout, '5s');
    assert.deepEqual(spec.flux.container, {
      disable: false,
      name: 'flux-view',
      mountPath: '/mnt/flux',
      pullAlways: false,
      image: 'localhost/flux-view:0.88.0',
    });
    assert.equal(spec.containers[0]?.image, 'ghcr.io/rse-ops/accounting:app-latest');
    assert.equal(spec.containers[0]?.name, 'sample');
    assert.equal(spec.containers[0]?.runFlux, true);
    assert.equal(spec.network.headlessName, 'sample');
  });

  it("takes the Go operator's view image without a setting, and keeps a MiniCluster's own", () => {
    assert.equal(applyDefaults({ containers: [{}] }, 's').flux.container.image, DEFAULT_FLUX_VIEW_IMAGE);
    const own = applyDefaults({ containers: [{}], flux: { container: { image: 'mine:1' } } }, 's', {
      fluxViewImage: 'other:1',
    });
    assert.equal(own.flux.container.image, 'mine:1');
  });

  it("names the headless Service after a user broker.toml's or a v1alpha1 services address, as v1alpha1 does", () => {
    const config = '[bootstrap]\ndefault_connect = "tcp://%h.flux-service.default.svc.cluster.local:%p"\n';
    assert.equal(
      applyDefaults({ containers: [{ image: APP_IMAGE }], flux: { brokerConfig: config } }, 's').network
        .headlessName,
      'flux-service',
    );
    assert.equal(
      applyDefaults({ containers: [{ command: 'curl -s s-services.flux-service.default' }] }, 's').network
        .headlessName,
      'flux-service',
    );
  });
});
