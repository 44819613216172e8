// What the operator tells each pod of its CPUs and GPUs (docs/mpi.md), and R with GPUs when the operator
// writes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exclusiveCpus, gpuCount, isGpuResource, placementInput } from '../../../src/render/placement.ts';
import { fluxContainer, miniClusterNames, renderMiniCluster } from '../../../src/render/index.ts';
import { entrypointInput } from '../../../src/render/flux-inputs.ts';
import { APP_IMAGE, KEYS, defaulted, defaultedV1alpha2, find, present } from './fixtures.ts';

describe('exclusiveCpus: whole CPUs a static CPU manager gives the container alone', () => {
  it('requests equal to limits, CPU a whole number, memory too', () => {
    assert.equal(exclusiveCpus({ cpu: '4', memory: '8Gi' }, {}), 4);
    assert.equal(exclusiveCpus({ cpu: 2, memory: '1Gi' }, { cpu: '2000m', memory: '1024Mi' }), 2);
  });

  it('none where the pod is not Guaranteed or the CPUs are not whole', () => {
    assert.equal(exclusiveCpus({ cpu: '1500m', memory: '1Gi' }, {}), undefined);
    assert.equal(exclusiveCpus({ cpu: '2', memory: '1Gi' }, { cpu: '1' }), undefined);
    assert.equal(exclusiveCpus({ cpu: '2' }, {}), undefined);
    assert.equal(exclusiveCpus({ memory: '1Gi' }, {}), undefined);
    assert.equal(exclusiveCpus({}, { cpu: '2', memory: '1Gi' }), undefined);
    assert.equal(exclusiveCpus({ cpu: '2', memory: '1Gi' }, { memory: '512Mi' }), undefined);
  });
});

describe('GPUs: extended resources named gpu in a vendor domain', () => {
  it('counts nvidia.com/gpu and amd.com/gpu, nothing else', () => {
    assert.equal(isGpuResource('nvidia.com/gpu'), true);
    assert.equal(isGpuResource('amd.com/gpu'), true);
    assert.equal(isGpuResource('gpu'), false);
    assert.equal(isGpuResource('example.com/gpus'), false);
    assert.equal(gpuCount({ 'nvidia.com/gpu': '2', cpu: '4', 'example.com/fpga': 1 }), 2);
    assert.equal(gpuCount({ 'nvidia.com/gpu': 1, 'amd.com/gpu': 2 }), 3);
    assert.equal(gpuCount({}, { 'nvidia.com/gpu': '1' }), 1);
    assert.equal(gpuCount({ cpu: '4' }), 0);
  });
});

describe('placementInput', () => {
  it('v1alpha2 without resources: only where the initrc goes', () => {
    const model = defaultedV1alpha2({});
    const placement = placementInput(model, fluxContainer(model));
    assert.deepEqual(Object.keys(placement), ['shellRcDir']);
    assert.match(placement.shellRcDir, /^\/.*\/shell$/);
  });

  it('a Guaranteed container with GPUs: exclusive CPUs, the limit, the GPUs', () => {
    const model = defaultedV1alpha2({
      containers: [
        {
          image: APP_IMAGE,
          command: 'lmp -in in.lj',
          resources: { limits: { cpu: '4', memory: '4Gi', 'nvidia.com/gpu': '2' } },
        },
      ],
    });
    const { shellRcDir, ...rest } = placementInput(model, fluxContainer(model));
    assert.ok(shellRcDir.endsWith('/shell'));
    assert.deepEqual(rest, { exclusiveCpus: 4, cpuLimit: 4, gpus: 2 });
  });

  it('a fractional CPU limit is rounded up; pod-level resources count where the container sets none', () => {
    const fractional = defaultedV1alpha2({
      containers: [{ image: APP_IMAGE, command: 'x', resources: { limits: { cpu: '1500m' } } }],
    });
    assert.equal(placementInput(fractional, fluxContainer(fractional)).cpuLimit, 2);
    const podLevel = defaulted({ pod: { resources: { cpu: '3' } } });
    assert.equal(placementInput(podLevel, fluxContainer(podLevel)).cpuLimit, 3);
  });

  it('reaches the entrypoint of every pod', () => {
    const model = defaulted({});
    const entry = entrypointInput(model, miniClusterNames(model));
    assert.deepEqual(entry.placement, placementInput(model, fluxContainer(model)));
  });

  it('R written by the operator (cores in the spec) lists the GPUs of every broker', () => {
    const model = defaulted({
      size: 2,
      containers: [
        { image: APP_IMAGE, command: 'x', cores: 4, resources: { limits: { 'nvidia.com/gpu': 1 } } },
      ],
    });
    const configMap = find.configMap(renderMiniCluster(model, KEYS));
    const resource = JSON.parse(present(configMap.data?.R)) as {
      execution: { R_lite: { rank: string; children: Record<string, string> }[] };
    };
    assert.deepEqual(resource.execution.R_lite, [{ rank: '0-1', children: { core: '0-3', gpu: '0' } }]);
  });
});
