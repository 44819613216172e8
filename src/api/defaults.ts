/**
 * Defaulting of a v1alpha2 MiniCluster: the schema's static defaults (the Go operator's), then the
 * derived ones, as in v1alpha1 (maxSize, headlessName, the containers' names and runFlux, burst
 * clusters), and the Flux view's image, which is the operator's setting.
 */
import { applyDerivedDefaults, applySchemaDefaults } from './shared/defaulting.ts';
import type { Static } from '@sinclair/typebox';
import { FluxContainerSchema } from './flux-schema.ts';
import { MiniClusterSpecSchema } from './schema.ts';
import type {
  DefaultedMiniCluster,
  DefaultedMiniClusterSpec,
  MiniCluster,
  MiniClusterSpec,
} from './schema.ts';
import { DEFAULT_FLUX_VIEW_IMAGE } from './go-defaults.ts';

export interface DefaultsOptions {
  /** The Flux view image of a MiniCluster that names none (`flux-operator run --flux-view-image`). */
  fluxViewImage?: string;
}

type DefaultedFluxContainer = DefaultedMiniClusterSpec['flux']['container'];

/**
 * The fully defaulted spec of the MiniCluster named `miniClusterName`. Meant for specs that passed
 * validation (validateMiniCluster), but total on any schema-valid spec.
 */
export function applyDefaults(
  spec: MiniClusterSpec,
  miniClusterName: string,
  options: DefaultsOptions = {},
): DefaultedMiniClusterSpec {
  // After the schema defaults every statically defaulted field is present; the derived ones are
  // filled in below, which completes the type the cast promises.
  const defaulted = applySchemaDefaults(MiniClusterSpecSchema, spec) as DefaultedMiniClusterSpec;
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
export function defaultMiniCluster(
  miniCluster: MiniCluster,
  options: DefaultsOptions = {},
): DefaultedMiniCluster {
  return {
    ...miniCluster,
    spec: applyDefaults(miniCluster.spec, miniCluster.metadata.name, options),
  };
}
