import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applySchemaDefaults } from '../../../src/api/shared/defaulting.ts';
import { applyDefaultsV1alpha1, defaultMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/defaults.ts';
import { miniClusterCrd } from '../../../src/api/minicluster-crd.ts';
import { MiniClusterV1alpha1SpecSchema } from '../../../src/api/v1alpha1/schema.ts';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/v1alpha1/schema.ts';
import { FLUX_IMAGE, miniCluster, withSidecar } from './fixtures.ts';

describe('applyDefaultsV1alpha1', () => {
  it('fills every default of a minimal spec', () => {
    const spec: MiniClusterV1alpha1Spec = { containers: [{ image: FLUX_IMAGE }] };
    assert.deepEqual(applyDefaultsV1alpha1(spec, 'flux-sample'), {
      size: 1,
      maxSize: 1,
      tasks: 1,
      interactive: false,
      deadlineSeconds: 31500000,
      cleanup: false,
      containers: [
        {
          name: 'flux-sample',
          image: FLUX_IMAGE,
          runFlux: true,
          fluxUser: { name: 'flux', uid: 1000 },
          pullAlways: false,
          launcher: false,
          batch: false,
          batchRaw: false,
          commands: { runFluxAsRoot: false },
        },
      ],
      logging: { quiet: false, strict: true, debug: false, zeromq: false, timed: false },
      network: { headlessName: 'flux-sample' },
      flux: { logLevel: 6, connectTimeout: '5s', installRoot: '/usr' },
    });
  });

  it('keeps every value that was given', () => {
    const spec: MiniClusterV1alpha1Spec = {
      size: 2,
      maxSize: 8,
      tasks: 4,
      interactive: true,
      deadlineSeconds: 60,
      cleanup: true,
      containers: [
        {
          name: 'main',
          image: FLUX_IMAGE,
          runFlux: true,
          fluxUser: { name: 'hpc', uid: 2000 },
          pullAlways: true,
          launcher: true,
          commands: { pre: 'echo hi', runFluxAsRoot: true },
        },
      ],
      logging: { quiet: true, strict: false, debug: true, zeromq: true, timed: true },
      network: { headlessName: 'svc' },
      flux: { logLevel: 3, connectTimeout: '1m', installRoot: '/opt/flux' },
    };
    const defaulted = applyDefaultsV1alpha1(spec, 'flux-sample');
    assert.equal(defaulted.maxSize, 8);
    assert.equal(defaulted.network.headlessName, 'svc');
    assert.deepEqual(defaulted.logging, spec.logging);
    assert.deepEqual(defaulted.flux, spec.flux);
    assert.deepEqual(defaulted.containers[0], { ...spec.containers[0], batch: false, batchRaw: false });
  });

  it('names the Flux container after the MiniCluster and marks the others as non-runners', () => {
    const defaulted = applyDefaultsV1alpha1({ containers: withSidecar() }, 'lammps');
    assert.deepEqual(
      defaulted.containers.map(({ name, runFlux }) => ({ name, runFlux })),
      [
        { name: 'lammps', runFlux: true },
        { name: 'sidecar', runFlux: false },
      ],
    );
  });

  it('treats a single container as the Flux container whatever runFlux says', () => {
    const defaulted = applyDefaultsV1alpha1(
      { containers: [{ image: FLUX_IMAGE, runFlux: false }] },
      'flux-sample',
    );
    assert.equal(defaulted.containers[0]?.runFlux, true);
  });

  it('names burst clusters burst-<index> and sizes them like the MiniCluster', () => {
    const defaulted = applyDefaultsV1alpha1(
      {
        size: 3,
        containers: [{ image: FLUX_IMAGE }],
        flux: { bursting: { clusters: [{}, { name: 'gke', size: 8 }, {}] } },
      },
      'flux-sample',
    );
    assert.deepEqual(defaulted.flux.bursting?.clusters, [
      { name: 'burst-0', size: 3 },
      { name: 'gke', size: 8 },
      { name: 'burst-2', size: 3 },
    ]);
  });

  it('defaults the lead broker port to 8050 and volume mounts to read-write', () => {
    const defaulted = applyDefaultsV1alpha1(
      {
        containers: [{ image: FLUX_IMAGE, volumes: { data: { path: '/data', claimName: 'data' } } }],
        flux: { bursting: { leadBroker: { address: '203.0.113.7', name: 'lead', size: 2 } } },
      },
      'flux-sample',
    );
    assert.equal(defaulted.flux.bursting?.leadBroker?.port, 8050);
    assert.deepEqual(defaulted.containers[0]?.volumes, {
      data: { path: '/data', claimName: 'data', readOnly: false },
    });
  });

  it('does not modify its input', () => {
    const spec: MiniClusterV1alpha1Spec = { containers: [{ image: FLUX_IMAGE }] };
    const copy = structuredClone(spec);
    applyDefaultsV1alpha1(spec, 'flux-sample');
    assert.deepEqual(spec, copy);
  });

  it('takes static defaults from the schema', () => {
    assert.equal(MiniClusterV1alpha1SpecSchema.properties.size.default, 1);
    assert.equal(MiniClusterV1alpha1SpecSchema.properties.deadlineSeconds.default, 31500000);
    assert.equal(
      applyDefaultsV1alpha1({ containers: [{ image: FLUX_IMAGE }] }, 'x').size,
      MiniClusterV1alpha1SpecSchema.properties.size.default,
    );
  });

  it('gives the same static defaults from the CRD schema as from the TypeBox schema (API server parity)', () => {
    const crdSpecSchema = miniClusterCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    assert.ok(crdSpecSchema);
    const spec: MiniClusterV1alpha1Spec = {
      containers: withSidecar({ volumes: { scratch: { path: '/tmp/s', emptyDir: true } } }),
      flux: { bursting: { leadBroker: { address: 'a', name: 'lead', size: 2 } } },
    };
    assert.deepEqual(
      applySchemaDefaults(crdSpecSchema, spec),
      applySchemaDefaults(MiniClusterV1alpha1SpecSchema, spec),
    );
  });

  it('defaults a whole MiniCluster, leaving metadata and status alone', () => {
    const input = { ...miniCluster(), status: { size: 4 } };
    const defaulted = defaultMiniClusterV1alpha1(input);
    assert.deepEqual(defaulted.metadata, input.metadata);
    assert.deepEqual(defaulted.status, { size: 4 });
    assert.equal(defaulted.spec.maxSize, 4);
  });
});

describe('applySchemaDefaults', () => {
  it('creates defaulted objects and descends into them, as the API server does', () => {
    const schema = {
      type: 'object',
      properties: {
        outer: { type: 'object', default: {}, properties: { inner: { type: 'integer', default: 7 } } },
        absent: { type: 'object', properties: { inner: { type: 'integer', default: 7 } } },
      },
    };
    assert.deepEqual(applySchemaDefaults(schema, {}), { outer: { inner: 7 } });
  });

  it('leaves values of the wrong type alone instead of throwing', () => {
    assert.deepEqual(applySchemaDefaults(MiniClusterV1alpha1SpecSchema, { containers: 'nope', logging: 3 }), {
      size: 1,
      tasks: 1,
      interactive: false,
      deadlineSeconds: 31500000,
      containers: 'nope',
      logging: 3,
      network: {},
      flux: { logLevel: 6, connectTimeout: '5s', installRoot: '/usr' },
      cleanup: false,
    });
  });
});
