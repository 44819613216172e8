/**
 * The one model the renderer reads: the hub's DefaultedMiniCluster (v1alpha2, the stored version).
 * A v1alpha1 MiniCluster is converted first (src/api/v1alpha1/convert-spec.ts: Flux in the
 * application image, `flux.container.disable: true`; containers beside Flux run as they are,
 * `noWrapEntrypoint: true`; the RESTful API it implies written out; no broker affinity,
 * `network.disableAffinity: true`), then defaulted, so both
 * versions render through the same code and a v1alpha1 MiniCluster renders as it always has.
 */
import {
  applyDefaults,
  type DefaultedMiniCluster,
  type DefaultedMiniClusterV1alpha1,
  type MiniClusterSpec,
} from '../api/index.ts';
import { specToV1alpha2 } from '../api/v1alpha1/convert-spec.ts';

/** What the renderer reads, under the API's own names (no alias of its own). */
export type { DefaultedContainer, DefaultedMiniCluster, DefaultedServiceContainer } from '../api/index.ts';

/** What the renderer takes: a defaulted MiniCluster of either version. */
export type RenderInput = DefaultedMiniClusterV1alpha1 | DefaultedMiniCluster;

/** Converted models of v1alpha1 inputs, by input: helpers called many times per pass convert once. */
const converted = new WeakMap<DefaultedMiniClusterV1alpha1, DefaultedMiniCluster>();

function isV1alpha1(input: RenderInput): input is DefaultedMiniClusterV1alpha1 {
  return input.apiVersion === 'flux-framework.org/v1alpha1';
}

/** The v1alpha2 model of a defaulted MiniCluster (the same object when it is v1alpha2 already). */
export function renderModel(input: RenderInput): DefaultedMiniCluster {
  if (!isV1alpha1(input)) return input;
  const known = converted.get(input);
  if (known !== undefined) return known;
  const spec = specToV1alpha2(input.spec) as MiniClusterSpec;
  const model: DefaultedMiniCluster = {
    ...input,
    apiVersion: 'flux-framework.org/v1alpha2',
    spec: applyDefaults(spec, input.metadata.name),
    // The status is only passed along; its fields are the same in both versions.
    status: input.status as DefaultedMiniCluster['status'],
  } as DefaultedMiniCluster;
  converted.set(input, model);
  return model;
}
