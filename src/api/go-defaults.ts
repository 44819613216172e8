/**
 * The defaults the MiniCluster fields share with the Go Flux Operator, in one place for the schema,
 * the defaulting and the conversion.
 */

/** The Go operator's default Flux view image (`flux.container.image`); the operator's own setting may replace it. */
export const DEFAULT_FLUX_VIEW_IMAGE = 'ghcr.io/converged-computing/flux-view-ubuntu:tag-noble';
/** Name of the init container that copies the Flux view (`flux.container.name`). */
export const DEFAULT_FLUX_VIEW_NAME = 'flux-view';
/** Where the view is shared with the application container (`flux.container.mountPath`). */
export const DEFAULT_FLUX_VIEW_MOUNT_PATH = '/mnt/flux';
/** flux.container.medium: the view in a memory-backed emptyDir of its own (Kubernetes' emptyDir medium). */
export const FLUX_VIEW_MEMORY_MEDIUM = 'Memory';
/** The Go operator's default application image (`containers[].image`). */
export const DEFAULT_APPLICATION_IMAGE = 'ghcr.io/rse-ops/accounting:app-latest';
/** Where an emptyDir volume without a path is mounted (the Go operator mounts every emptyDir there). */
export const DEFAULT_EMPTY_DIR_PATH = '/dev/shm';
/** The Go operator's default Fluxion queue policy. */
export const DEFAULT_QUEUE_POLICY = 'fcfs';
