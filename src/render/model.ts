/**
 * The one model the renderer reads: a defaulted v1alpha2 MiniCluster (the stored, current version).
 * A v1alpha1 MiniCluster is converted first (src/api/v1alpha2/convert-spec.ts: Flux in the
 * application image, `flux.container.disable: true`; containers beside Flux run as they are,
 * `noWrapEntrypoint: true`; the RESTful API it implies written out; no broker affinity,
 * `network.disableAffinity: true`), then defaulted, so both
 * versions render through the same code and a v1alpha1 MiniCluster renders as it always has.
 */
import type { DefaultedMiniCluster } from '../api/index.ts';
import {
  applyDefaultsV1alpha2,
  type DefaultedContainerV1alpha2,
  type DefaultedMiniClusterV1alpha2,
  type MiniClusterV1alpha2Spec,
} from '../api/v1alpha2/index.ts';
import { specToV1alpha2 } from '../api/v1alpha2/convert-spec.ts';

/** What the renderer reads. */
export type MiniClusterModel = DefaultedMiniClusterV1alpha2;
export type ContainerModel = DefaultedContainerV1alpha2;
export type ServiceModel = NonNullable<MiniClusterModel['spec']['services']>[number];

/** What the renderer takes: a defaulted MiniCluster of either version. */
export type RenderInput = DefaultedMiniCluster | DefaultedMiniClusterV1alpha2;

/** Converted models of v1alpha1 inputs, by input: helpers called many times per pass convert once. */
const converted = new WeakMap<DefaultedMiniCluster, MiniClusterModel>();

function isV1alpha1(input: RenderInput): input is DefaultedMiniCluster {
  return input.apiVersion === 'flux-framework.org/v1alpha1';
}

/** The v1alpha2 model of a defaulted MiniCluster (the same object when it is v1alpha2 already). */
export function renderModel(input: RenderInput): MiniClusterModel {
  if (!isV1alpha1(input)) return input;
  const known = converted.get(input);
  if (known !== undefined) return known;
  const spec = specToV1alpha2(input.spec) as MiniClusterV1alpha2Spec;
  const model: MiniClusterModel = {
    ...input,
    apiVersion: 'flux-framework.org/v1alpha2',
    spec: applyDefaultsV1alpha2(spec, input.metadata.name),
    // The status is only passed along; its fields are the same in both versions.
    status: input.status as MiniClusterModel['status'],
  } as MiniClusterModel;
  converted.set(input, model);
  return model;
}
