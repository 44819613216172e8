import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  defaultMiniClusterV1alpha1,
  validateMiniClusterV1alpha1,
  type DefaultedMiniClusterV1alpha1,
} from '../../../src/api/index.ts';
import { validateMiniCluster, type DefaultedMiniCluster } from '../../../src/api/index.ts';
import {
  REAL_NODE_TOLERATION,
  describeSwaps,
  imagesUsed,
  onRealNode,
  type RealNodeImages,
} from '../../../workbench/src/quickstart/real-node-placement.ts';
import { imageGroupsFor } from '../../../workbench/src/quickstart/quickstart-command.ts';
import { loadMiniClusters } from '../../../src/cli/render-command.ts';
import { REAL_NODE_IMAGE_GROUPS } from '../../../workbench/src/localcluster/real-node/images.ts';
import { fluxContainer, miniCluster, withSidecar } from '../api/fixtures.ts';
import { miniClusterV1alpha2 } from '../api/v1alpha2-fixtures.ts';

const HELLO_WORLD = fileURLToPath(new URL('../../../examples/hello-world.yaml', import.meta.url));
const IMAGES: RealNodeImages = {
  flux: 'localhost/flux:0.88.0',
  view: 'localhost/flux-view:0.88.0',
  plain: 'localhost/plain:bookworm',
};
const REAL = { key: 'sim.flux-framework.org/real', value: 'true' };
const PLACEMENT = {
  nodeSelector: { [REAL.key]: REAL.value },
  tolerations: [{ key: REAL.key, operator: 'Equal', value: REAL.value, effect: 'NoSchedule' }],
};

function defaulted(spec: Parameters<typeof miniCluster>[0] = {}): DefaultedMiniClusterV1alpha1 {
  return defaultMiniClusterV1alpha1(miniCluster(spec));
}

/** Validated and defaulted, as quickstart loads a file. */
function defaultedV1alpha2(spec: Parameters<typeof miniClusterV1alpha2>[0] = {}): DefaultedMiniCluster {
  const result = validateMiniCluster(miniClusterV1alpha2(spec));
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

/** The object as quickstart applies it: what the API server validates. */
function applied(input: { apiVersion: string; kind: string; metadata: object; spec: object }) {
  const { apiVersion, kind, metadata, spec } = input;
  return { apiVersion, kind, metadata, spec };
}

describe('onRealNode, v1alpha2 (the examples): Flux from the local view in the plain image', () => {
  it('puts examples/hello-world.yaml on the real node with the view and the plain image, the rest unchanged', async () => {
    const [hello] = await loadMiniClusters([HELLO_WORLD]);
    assert.ok(hello && hello.apiVersion === 'flux-framework.org/v1alpha2');
    const { miniCluster: placed, swaps } = onRealNode(hello, IMAGES);
    assert.deepEqual(placed.spec.pod, PLACEMENT);
    assert.deepEqual(placed.spec.containers, [
      { ...hello.spec.containers[0], image: IMAGES.plain, pullAlways: false, imagePullPolicy: 'Never' },
    ]);
    assert.deepEqual(placed.spec.flux.container, {
      ...hello.spec.flux.container,
      image: IMAGES.view,
      pullAlways: false,
    });
    assert.deepEqual(
      {
        ...placed.spec,
        pod: undefined,
        containers: undefined,
        flux: { ...placed.spec.flux, container: undefined },
      },
      {
        ...hello.spec,
        pod: undefined,
        containers: undefined,
        flux: { ...hello.spec.flux, container: undefined },
      },
    );
    assert.deepEqual(
      swaps.map((swap) => [swap.from, swap.to]),
      [
        [hello.spec.containers[0]?.image, IMAGES.plain],
        [hello.spec.flux.container.image, IMAGES.view],
      ],
    );
    assert.match(describeSwaps(swaps), /-> localhost\/plain:bookworm \(bash and coreutils only\)/);
    assert.equal(hello.spec.pod, undefined, 'the loaded MiniCluster is left as it was');
    const check = validateMiniCluster(applied(placed));
    assert.ok(check.ok, JSON.stringify(check));
  });

  it('keeps images already built here, and swaps each other one once in what it says', () => {
    const given = defaultedV1alpha2({
      containers: [
        { image: 'rockylinux:9', command: 'uname -n', runFlux: true },
        { name: 'local', image: 'localhost/plain:trixie', command: 'sleep 1' },
        { name: 'again', image: 'rockylinux:9', command: 'sleep 1' },
      ],
      flux: { container: { image: 'localhost/flux-view:custom' } },
    });
    const { miniCluster: placed, swaps } = onRealNode(given, IMAGES);
    assert.deepEqual(
      placed.spec.containers.map((container) => container.image),
      [IMAGES.plain, 'localhost/plain:trixie', IMAGES.plain],
    );
    assert.equal(placed.spec.flux.container.image, 'localhost/flux-view:custom');
    assert.deepEqual(swaps, [{ from: 'rockylinux:9', to: IMAGES.plain, role: 'bash and coreutils only' }]);
  });

  it('with flux.container.disable, runs the Flux container on the local Flux image and leaves the others', () => {
    const given = defaultedV1alpha2({
      containers: [
        { image: 'ghcr.io/flux-framework/flux-restful-api:latest', command: 'hostname', runFlux: true },
        { name: 'sidecar', image: 'busybox:1.36', command: 'sleep 1' },
      ],
      flux: { container: { disable: true } },
    });
    const { miniCluster: placed, swaps } = onRealNode(given, IMAGES);
    assert.deepEqual(
      placed.spec.containers.map((container) => [container.image, container.runFlux]),
      [
        [IMAGES.flux, true],
        ['busybox:1.36', false],
      ],
    );
    assert.equal(placed.spec.flux.container.image, given.spec.flux.container.image, 'no view is copied');
    assert.deepEqual(
      swaps.map((swap) => swap.to),
      [IMAGES.flux],
    );
  });

  it('adds the toleration only once', () => {
    const once = onRealNode(defaultedV1alpha2(), IMAGES).miniCluster;
    const twice = onRealNode(once, IMAGES);
    assert.deepEqual(twice.miniCluster, once);
    assert.deepEqual(twice.swaps, []);
  });
});

describe('onRealNode, v1alpha1: Flux in the image', () => {
  it('swaps only the Flux container, which is then never pulled, and places the pods', () => {
    const given = defaulted({ containers: withSidecar() });
    const { miniCluster: placed, swaps } = onRealNode(given, IMAGES);
    assert.deepEqual(
      placed.spec.containers.map((container) => [container.name, container.image, container.runFlux]),
      [
        ['flux-sample', IMAGES.flux, true],
        ['sidecar', 'busybox:1.36', false],
      ],
    );
    assert.deepEqual(placed.spec.pod, PLACEMENT);
    assert.deepEqual(
      swaps.map((swap) => [swap.to, swap.role]),
      [[IMAGES.flux, 'Flux built here']],
    );
    const pulled = defaulted({ containers: [fluxContainer({ pullAlways: true })] });
    assert.equal(onRealNode(pulled, IMAGES).miniCluster.spec.containers[0]?.pullAlways, false);
    assert.ok(validateMiniClusterV1alpha1(placed).ok, 'the result is a valid MiniCluster');
  });

  it("keeps the file's pod settings and adds the real node's to them", () => {
    const given = defaulted({
      pod: {
        labels: { team: 'demo' },
        annotations: { note: 'kept' },
        serviceAccountName: 'runner',
        resources: { cpu: '1' },
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
      },
    });
    assert.deepEqual(onRealNode(given, IMAGES).miniCluster.spec.pod, {
      labels: { team: 'demo' },
      annotations: { note: 'kept' },
      serviceAccountName: 'runner',
      resources: { cpu: '1' },
      nodeSelector: { 'kubernetes.io/os': 'linux', [REAL.key]: REAL.value },
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, REAL_NODE_TOLERATION],
    });
  });

  it('adds the toleration only once, also when the file has it already', () => {
    const once = onRealNode(defaulted(), IMAGES).miniCluster;
    assert.deepEqual(onRealNode(once, IMAGES).miniCluster, once);
    const without = defaulted({ pod: { tolerations: [{ key: REAL.key, value: REAL.value }] } });
    assert.deepEqual(onRealNode(without, IMAGES).miniCluster.spec.pod?.tolerations, [
      { key: REAL.key, value: REAL.value },
    ]);
  });
});

describe('the images a placed MiniCluster runs, and the real node`s groups they come from', () => {
  it('hello-world (v1alpha2): the view and the plain image only, so a first run builds no Flux image nor LAMMPS', async () => {
    const [hello] = await loadMiniClusters([HELLO_WORLD]);
    assert.ok(hello);
    const { miniCluster: placed } = onRealNode(hello, IMAGES);
    assert.deepEqual(imagesUsed(placed).sort(), [IMAGES.plain, IMAGES.view].sort());
    assert.deepEqual(imageGroupsFor(placed, IMAGES).sort(), ['plain', 'view']);
  });

  it('v1alpha1, and v1alpha2 with flux.container.disable: the Flux image', () => {
    const v1alpha1 = onRealNode(defaulted(), IMAGES).miniCluster;
    assert.deepEqual(imagesUsed(v1alpha1), [IMAGES.flux]);
    assert.deepEqual(imageGroupsFor(v1alpha1, IMAGES), ['flux']);
    const disabled = onRealNode(
      defaultedV1alpha2({ flux: { container: { disable: true } } }),
      IMAGES,
    ).miniCluster;
    assert.deepEqual(imageGroupsFor(disabled, IMAGES), ['flux']);
  });

  it('another image built here (examples/lammps.yaml`s localhost/lammps-openmpi): every group', () => {
    const lammps = onRealNode(
      defaultedV1alpha2({ containers: [{ image: 'localhost/lammps-openmpi:bookworm' }] }),
      IMAGES,
    ).miniCluster;
    assert.ok(imagesUsed(lammps).includes('localhost/lammps-openmpi:bookworm'));
    assert.deepEqual(imageGroupsFor(lammps, IMAGES), [...REAL_NODE_IMAGE_GROUPS]);
  });
});
