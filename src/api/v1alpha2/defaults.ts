/**
 * Defaulting of a v1alpha2 MiniCluster: the schema's static defaults (the Go operator's), then the
 * derived ones, as in v1alpha1 (maxSize, headlessName, the containers' names and runFlux, burst
 * clusters), and the Flux view's image, which is the operator's setting.
 */
import { applyDerivedDefaults, applySchemaDefaults } from '../defaults.ts';
import type { Static } from '@sinclair/typebox';
import { FluxContainerSchema } from './flux-schema.ts';
import { MiniClusterV1alpha2SpecSchema } from './schema.ts';
import type {
  DefaultedMiniClusterV1alpha2,
  DefaultedMiniClusterV1alpha2Spec,
  MiniClusterV1alpha2,
  MiniClusterV1alpha2Spec,
} from './schema.ts';
import { DEFAULT_FLUX_VIEW_IMAGE } from './version.ts';

export interface DefaultsOptions {
  /** The Flux view image of a MiniCluster that names none (`flux-operator run --flux-view-image`). */
  fluxViewImage?: string;
}

type DefaultedFluxContainer = DefaultedMiniClusterV1alpha2Spec['flux']['container'];

/**
 * The fully defaulted spec of the MiniCluster named `miniClusterName`. Meant for specs that passed
 * validation (validateMiniClusterV1alpha2), but total on any schema-valid spec.
 */
export function applyDefaultsV1alpha2(
  spec: MiniClusterV1alpha2Spec,
  miniClusterName: string,
  options: DefaultsOptions = {},
): DefaultedMiniClusterV1alpha2Spec {
  // After the schema defaults every statically defaulted field is present; the derived ones are
  // filled in below, which completes the type the cast promises.
  const defaulted = applySchemaDefaults(
    MiniClusterV1alpha2SpecSchema,
    spec,
  ) as DefaultedMiniClusterV1alpha2Spec;
  applyDerivedDefaults(defaulted, spec, miniClusterName);

  const container = applySchemaDefaults(FluxContainerSchema, spec.flux?.container ?? {}) as Static<
    typeof FluxContainerSchema
  >;
  defaulted.flux.container = {
    ...container,
    image: container.image ?? options.fluxViewImage ?? DEFAULT_FLUX_VIEW_IMAGE,
  } as DefaultedFluxContainer;
  return defaulted;
}

/** The MiniCluster with its spec defaulted (metadata and status are copied as they are). */
export function defaultMiniClusterV1alpha2(
  miniCluster: MiniClusterV1alpha2,
  options: DefaultsOptions = {},
): DefaultedMiniClusterV1alpha2 {
  return {
    ...miniCluster,
    spec: applyDefaultsV1alpha2(miniCluster.spec, miniCluster.metadata.name, options),
  };
}
