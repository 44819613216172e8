/** Defaulting of a v1alpha1 MiniCluster: its schema's static defaults, then the derived ones both versions share. */
import { applyDerivedDefaults, applySchemaDefaults } from '../shared/defaulting.ts';
import { MiniClusterV1alpha1SpecSchema } from './schema.ts';
import type {
  DefaultedMiniClusterV1alpha1,
  DefaultedMiniClusterV1alpha1Spec,
  MiniClusterV1alpha1,
  MiniClusterV1alpha1Spec,
} from './schema.ts';

/**
 * The fully defaulted spec of the MiniCluster named `miniClusterName`. Meant for specs that passed
 * validation (see validateMiniClusterV1alpha1), but total: it never throws on a schema-valid spec.
 */
export function applyDefaultsV1alpha1(
  spec: MiniClusterV1alpha1Spec,
  miniClusterName: string,
): DefaultedMiniClusterV1alpha1Spec {
  // After the schema defaults every statically defaulted field is present; the derived ones are
  // filled in below, which completes the type the cast promises.
  const defaulted = applySchemaDefaults(
    MiniClusterV1alpha1SpecSchema,
    spec,
  ) as DefaultedMiniClusterV1alpha1Spec;
  applyDerivedDefaults(defaulted, defaulted as MiniClusterV1alpha1Spec, miniClusterName);
  return defaulted;
}

/** The MiniCluster with its spec defaulted (metadata and status are copied as they are). */
export function defaultMiniClusterV1alpha1(miniCluster: MiniClusterV1alpha1): DefaultedMiniClusterV1alpha1 {
  return { ...miniCluster, spec: applyDefaultsV1alpha1(miniCluster.spec, miniCluster.metadata.name) };
}
