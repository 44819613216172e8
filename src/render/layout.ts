/**
 * Where Flux comes from in a MiniCluster's pods, and where their writable files are: decided once
 * from the spec, for the Job, the entrypoint and broker.toml alike.
 */
import { FLUX_VIEW_MEMORY_MEDIUM } from '../api/go-defaults.ts';
import type { DefaultedContainer, DefaultedMiniCluster } from './model.ts';
import { podLayout, type PodLayout } from './paths.ts';

/**
 * Flux comes from the view an init container copies into a volume shared with the application
 * container (v1alpha2's default), not from the application image (`flux.container.disable`, and
 * every v1alpha1 MiniCluster).
 */
export function usesFluxView(miniCluster: DefaultedMiniCluster): boolean {
  return !miniCluster.spec.flux.container.disable;
}

/**
 * A container beside the Flux container whose command is wrapped in a script that waits for Flux
 * (v1alpha2's default; `noWrapEntrypoint` runs it as it is, as every v1alpha1 one does).
 */
export function isWrapped(container: DefaultedContainer): boolean {
  return !container.runFlux && container.noWrapEntrypoint !== true;
}

/** Where the pod's writable files are (see PodLayout). */
export function layoutOf(miniCluster: DefaultedMiniCluster): PodLayout {
  const { container } = miniCluster.spec.flux;
  return podLayout(
    container.disable ? undefined : container.mountPath,
    miniCluster.spec.containers.some(isWrapped),
    container.medium === FLUX_VIEW_MEMORY_MEDIUM,
  );
}
