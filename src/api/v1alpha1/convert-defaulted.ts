/**
 * A defaulted v1alpha1 MiniCluster as the hub's DefaultedMiniCluster, for the places that first hold
 * one (the CLI's files, the burst builder): Flux in the application image
 * (`flux.container.disable: true`), containers beside Flux run as they are (`noWrapEntrypoint: true`),
 * the RESTful API it implies written out, no broker affinity (`network.disableAffinity: true`); then
 * the hub's defaults. Everything past that point (src/render) reads the hub alone, and a v1alpha1
 * MiniCluster renders as it always has.
 */
import { applyDefaults } from '../defaults.ts';
import type { DefaultedMiniCluster, MiniClusterSpec } from '../schema.ts';
import { API_VERSION } from '../group.ts';
import { specToV1alpha2 } from './convert-spec.ts';
import type { DefaultedMiniClusterV1alpha1 } from './schema.ts';
import { API_VERSION_V1ALPHA1 } from './version.ts';

export function defaultedToV1alpha2(miniCluster: DefaultedMiniClusterV1alpha1): DefaultedMiniCluster {
  const spec = specToV1alpha2(miniCluster.spec) as MiniClusterSpec;
  return {
    ...miniCluster,
    apiVersion: API_VERSION,
    spec: applyDefaults(spec, miniCluster.metadata.name),
    // Only passed along: the status's fields are the same in both versions.
    status: miniCluster.status as DefaultedMiniCluster['status'],
  } as DefaultedMiniCluster;
}

/** The hub's model of a defaulted MiniCluster of either version (a v1alpha2 one is itself). */
export function hubModelOf(
  miniCluster: DefaultedMiniCluster | DefaultedMiniClusterV1alpha1,
): DefaultedMiniCluster {
  return miniCluster.apiVersion === API_VERSION_V1ALPHA1 ? defaultedToV1alpha2(miniCluster) : miniCluster;
}
