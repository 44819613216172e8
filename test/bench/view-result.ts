// The one JSON line `npm run bench -- --view` prints, from the MiniClusters it measured.
import type { ViewKind } from './view-options.ts';
import { round } from './process-metrics.ts';

/** The target: the view's start-up within 1.3x of Flux in the image (issue 22). */
export const VIEW_TARGET_RATIO = 1.3;

/** What one MiniCluster's run measured (seconds, from the apply). */
export interface ViewSample {
  kind: ViewKind;
  /** To the MiniCluster's Succeeded condition (all of its command done). */
  succeededSeconds: number;
  /** To every broker pod's Flux container started (running, or already ended when seen). */
  podsStartedSeconds: number;
  /**
   * Each pod's init container from its start to its end as the pod's status gives them (whole
   * seconds): the view's copy. Empty when the pods have none (Flux in the image).
   */
  initSeconds: number[];
  /** The image ids the init containers ran (the view's image as the node had it then). */
  initImageIds: string[];
}

export interface ViewRunContext {
  /** The application image of each kind, and the view image the view kind's init container ran. */
  images: Record<ViewKind, string>;
  fluxViewImage: string;
  size: number;
  rounds: number;
  machineCpus: number;
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] as number;
  return sorted.length % 2 === 1 ? upper : (upper + (sorted[middle - 1] as number)) / 2;
}

/** An image id's first 12 hex digits, as `crictl images` shows it. */
function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

function kindFigures(samples: readonly ViewSample[]) {
  const succeeded = samples.map((sample) => sample.succeededSeconds);
  const started = samples.map((sample) => sample.podsStartedSeconds);
  const init = samples.flatMap((sample) => sample.initSeconds);
  const imageIds = [...new Set(samples.flatMap((sample) => sample.initImageIds))].sort();
  return {
    median_succeeded_seconds: round(median(succeeded)),
    median_pods_started_seconds: round(median(started)),
    ...(init.length === 0 ? {} : { median_init_container_seconds: round(median(init)) }),
    ...(imageIds.length === 0 ? {} : { init_image_ids: imageIds }),
    samples: {
      succeeded_seconds: succeeded.map(round),
      pods_started_seconds: started.map(round),
      ...(init.length === 0 ? {} : { init_container_seconds: samples.map((sample) => sample.initSeconds) }),
      ...(imageIds.length === 0
        ? {}
        : { init_image_ids: samples.map((sample) => sample.initImageIds.map(shortId)) }),
    },
  };
}

/** A view kind over baked; null when baked is 0 (nothing to compare with). */
function ratio(view: number, baked: number): number | null {
  return baked === 0 ? null : view / baked;
}

export function viewResult(samples: readonly ViewSample[], context: ViewRunContext) {
  const of = (kind: ViewKind) => samples.filter((sample) => sample.kind === kind);
  // From the unrounded medians, and compared with the target before rounding: 1.304 is not within 1.3.
  const succeeded = (kind: ViewKind) => median(of(kind).map((sample) => sample.succeededSeconds));
  const started = (kind: ViewKind) => median(of(kind).map((sample) => sample.podsStartedSeconds));
  const against = (kind: 'view' | 'memory') => {
    const succeededRatio = ratio(succeeded(kind), succeeded('baked'));
    const startedRatio = ratio(started(kind), started('baked'));
    return {
      ratio: succeededRatio === null ? null : round(succeededRatio),
      pods_started_ratio: startedRatio === null ? null : round(startedRatio),
      within_target: succeededRatio !== null && succeededRatio <= VIEW_TARGET_RATIO,
    };
  };
  const view = against('view');
  const memory = against('memory');
  return {
    mode: 'view',
    minicluster: "the Go operator's examples/tests/hello-world",
    size: context.size,
    rounds: context.rounds,
    order: samples.map((sample) => sample.kind),
    machine_cpus: context.machineCpus,
    view: { image: context.images.view, flux_view_image: context.fluxViewImage, ...kindFigures(of('view')) },
    memory: {
      image: context.images.memory,
      flux_view_image: context.fluxViewImage,
      medium: 'Memory',
      ...kindFigures(of('memory')),
    },
    baked: { image: context.images.baked, ...kindFigures(of('baked')) },
    target_ratio: VIEW_TARGET_RATIO,
    // The view as it is by default (on the node's disk), over Flux in the image.
    ...view,
    // The view with flux.container.medium: Memory, over Flux in the image.
    memory_ratio: memory.ratio,
    memory_pods_started_ratio: memory.pods_started_ratio,
    memory_within_target: memory.within_target,
  };
}

export function viewLine(...args: Parameters<typeof viewResult>): string {
  return `${JSON.stringify(viewResult(...args))}\n`;
}
