/**
 * A MiniCluster as the quickstart (`npm start`) runs it on the local cluster's real node: nothing can be
 * pulled there (no registry), so the images the file names give way to the ones built here and loaded
 * into the node, and the pods select the node and tolerate its taint.
 */
import {
  API_VERSION_V1ALPHA1,
  type DefaultedMiniClusterV1alpha1,
  type Toleration,
} from '../../../src/api/index.ts';
import type { DefaultedMiniCluster } from '../../../src/api/index.ts';
import { REAL_NODE_PLACEMENT } from '../localcluster/real-node/config.ts';
import { fluxContainer } from '../../../src/render/index.ts';
import type { WrittenMiniCluster } from '../../../src/cli/render-command.ts';

/** The toleration of the real node's taint. */
export const REAL_NODE_TOLERATION: Toleration = { ...REAL_NODE_PLACEMENT.tolerations[0] };

/** The images loaded into the real node. */
export interface RealNodeImages {
  /** Flux installed in the image (`localhost/flux:<version>`): for Flux in the application image. */
  readonly flux: string;
  /** The Flux view (`localhost/flux-view:<version>`): for a v1alpha2 MiniCluster running Flux from it. */
  readonly view: string;
  /** An application image without Flux (`localhost/plain:bookworm`): bash and coreutils only. */
  readonly plain: string;
}

/** One image of the file replaced by a local one. */
export interface ImageSwap {
  readonly from: string;
  readonly to: string;
  /** What the local image stands for, e.g. `the application image`. */
  readonly role: string;
}

export interface RealNodePlacement<T extends WrittenMiniCluster> {
  readonly miniCluster: T;
  readonly swaps: readonly ImageSwap[];
}

/** Images built here and loaded into the node (`localhost/...`) are kept; nothing else is there. */
function isLocal(image: string): boolean {
  return image.startsWith('localhost/');
}

function placedPod<T extends WrittenMiniCluster>(spec: T['spec']): T['spec']['pod'] {
  const tolerations = spec.pod?.tolerations ?? [];
  const tolerated = tolerations.some(
    (toleration) =>
      toleration.key === REAL_NODE_TOLERATION.key &&
      toleration.value === REAL_NODE_TOLERATION.value &&
      (toleration.operator ?? 'Equal') === 'Equal' &&
      (toleration.effect === undefined || toleration.effect === 'NoSchedule'),
  );
  return {
    ...spec.pod,
    nodeSelector: { ...spec.pod?.nodeSelector, ...REAL_NODE_PLACEMENT.nodeSelector },
    tolerations: tolerated ? tolerations : [...tolerations, REAL_NODE_TOLERATION],
  };
}

function swapOf(from: string, to: string, role: string): ImageSwap[] {
  return from === to ? [] : [{ from, to, role }];
}

/** Flux in the image (every v1alpha1 MiniCluster): its Flux container runs on the local Flux image. */
function fluxInImage(
  miniCluster: DefaultedMiniClusterV1alpha1,
  images: RealNodeImages,
): RealNodePlacement<DefaultedMiniClusterV1alpha1> {
  const { spec } = miniCluster;
  const flux = spec.containers.find((container) => container.runFlux);
  if (flux === undefined)
    throw new Error(`MiniCluster ${miniCluster.metadata.name} has no container with runFlux`);
  return {
    miniCluster: {
      ...miniCluster,
      spec: {
        ...spec,
        containers: spec.containers.map((container) =>
          container === flux ? { ...container, image: images.flux, pullAlways: false } : container,
        ),
        pod: placedPod<DefaultedMiniClusterV1alpha1>(spec),
      },
    },
    swaps: swapOf(flux.image, images.flux, 'Flux built here'),
  };
}

/**
 * A v1alpha2 MiniCluster: Flux from the local view in the plain image (what the file's application
 * image stands for), or, with `flux.container.disable`, from the local Flux image as in v1alpha1.
 */
function v1alpha2OnRealNode(
  miniCluster: DefaultedMiniCluster,
  images: RealNodeImages,
): RealNodePlacement<DefaultedMiniCluster> {
  const { spec } = miniCluster;
  const view = spec.flux.container;
  const flux = fluxContainer(miniCluster);
  const swaps: ImageSwap[] = [];
  const containers = spec.containers.map((container) => {
    const image = view.disable
      ? container === flux
        ? images.flux
        : container.image
      : isLocal(container.image)
        ? container.image
        : images.plain;
    if (image === container.image) return container;
    swaps.push(
      ...swapOf(container.image, image, view.disable ? 'Flux built here' : 'bash and coreutils only'),
    );
    return { ...container, image, pullAlways: false, imagePullPolicy: 'Never' as const };
  });
  const viewImage = view.disable || isLocal(view.image) ? view.image : images.view;
  swaps.push(...swapOf(view.image, viewImage, 'the Flux view built here'));
  return {
    miniCluster: {
      ...miniCluster,
      spec: {
        ...spec,
        containers,
        flux: { ...spec.flux, container: { ...view, image: viewImage, pullAlways: false } },
        pod: placedPod<DefaultedMiniCluster>(spec),
      },
    },
    swaps: [...new Map(swaps.map((swap) => [`${swap.from} ${swap.to}`, swap])).values()],
  };
}

/** The MiniCluster placed on the real node with the images loaded there, and which images it swapped. */
export function onRealNode(
  miniCluster: DefaultedMiniClusterV1alpha1,
  images: RealNodeImages,
): RealNodePlacement<DefaultedMiniClusterV1alpha1>;
export function onRealNode(
  miniCluster: DefaultedMiniCluster,
  images: RealNodeImages,
): RealNodePlacement<DefaultedMiniCluster>;
export function onRealNode(
  miniCluster: WrittenMiniCluster,
  images: RealNodeImages,
): RealNodePlacement<WrittenMiniCluster>;
export function onRealNode(
  miniCluster: WrittenMiniCluster,
  images: RealNodeImages,
): RealNodePlacement<WrittenMiniCluster> {
  return miniCluster.apiVersion === API_VERSION_V1ALPHA1
    ? fluxInImage(miniCluster, images)
    : v1alpha2OnRealNode(miniCluster, images);
}

/** `ubuntu:noble -> localhost/plain:bookworm (bash and coreutils only)`, one per swap. */
export function describeSwaps(swaps: readonly ImageSwap[]): string {
  return swaps.map((swap) => `${swap.from} -> ${swap.to} (${swap.role})`).join(', ');
}

/** Every image a MiniCluster's pods run: its containers', its services', and the view's when it uses one. */
export function imagesUsed(miniCluster: WrittenMiniCluster): string[] {
  const { spec } = miniCluster;
  const images = spec.containers.map((container) => container.image);
  if (miniCluster.apiVersion !== API_VERSION_V1ALPHA1) {
    const v1alpha2 = spec as DefaultedMiniCluster['spec'];
    images.push(...(v1alpha2.services ?? []).map((service) => service.image));
    if (!v1alpha2.flux.container.disable) images.push(v1alpha2.flux.container.image);
  } else {
    images.push(
      ...((spec as DefaultedMiniClusterV1alpha1['spec']).services ?? []).map((service) => service.image),
    );
  }
  return [...new Set(images)];
}
