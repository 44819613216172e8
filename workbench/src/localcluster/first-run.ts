// A run's builds (a first run's above all): what the cache lacks and will be built (the control plane, the real node's
// binaries, image groups), said once with how long it takes in all, then one line as each build starts
// with what is left after it, at this machine's pace once the builds so far tell it. Pure but for the
// `say` and the clock it is given.

/** Something a run builds because the cache lacks it. */
export interface BuildStage {
  readonly key: string;
  readonly what: string;
  /** How long it takes on a fresh 2-core machine (measured; see where each figure comes from). */
  readonly seconds: number;
}

/** `about 12 min`, or `under a minute`. */
export function duration(seconds: number): string {
  return seconds < 60 ? 'under a minute' : `about ${Math.round(seconds / 60)} min`;
}

export interface FirstRunPlan {
  /** The line said before anything is built; undefined when the cache holds everything. */
  readonly announcement: string | undefined;
  /** Says the stage's line when it is in the plan and was not said yet; nothing otherwise. */
  starting(key: string): void;
}

/**
 * Estimated seconds of builds behind it before a pace is told: a shorter build (the plain images, 15 s)
 * says little of the machine, and less of the slow ones after it.
 */
export const PACE_AFTER_SECONDS = 120;
/** The pace is kept within these (a build that found most of its work done is not a machine's pace). */
export const PACE_BOUNDS = [0.1, 10] as const;

/**
 * How this machine builds against the estimates: the wall time since the first build began over what
 * the builds started so far were estimated to take (all ended: builds run one at a time). Undefined
 * until those estimates reach PACE_AFTER_SECONDS.
 */
export function buildPace(elapsedSeconds: number, estimatedSeconds: number): number | undefined {
  if (estimatedSeconds < PACE_AFTER_SECONDS || !(elapsedSeconds > 0)) return undefined;
  return Math.min(PACE_BOUNDS[1], Math.max(PACE_BOUNDS[0], elapsedSeconds / estimatedSeconds));
}

export function firstRunPlan(
  stages: readonly BuildStage[],
  say: (line: string) => void,
  now: () => number = Date.now,
): FirstRunPlan {
  const total = stages.reduce((sum, stage) => sum + stage.seconds, 0);
  const started = new Set<string>();
  let firstStartMs: number | undefined;
  const announcement =
    stages.length === 0
      ? undefined
      : `building what the cache lacks (once: later runs reuse it), ${stages.length} ${stages.length === 1 ? 'build' : 'builds'}, ${duration(total)} in all on 2 cores: ` +
        stages.map((stage) => `${stage.what} (${duration(stage.seconds)})`).join(', ');
  return {
    announcement,
    starting(key) {
      const index = stages.findIndex((stage) => stage.key === key);
      const stage = stages[index];
      if (stage === undefined || started.has(key)) return;
      const at = now();
      firstStartMs ??= at;
      const behind = stages
        .filter((done) => started.has(done.key))
        .reduce((sum, done) => sum + done.seconds, 0);
      const pace = buildPace((at - firstStartMs) / 1000, behind);
      started.add(key);
      const left = stages.slice(index + 1).filter((next) => !started.has(next.key));
      const after = left.reduce((sum, next) => sum + next.seconds, 0);
      const paced = (seconds: number): string => duration(seconds * (pace ?? 1));
      say(
        `[build ${index + 1}/${stages.length}] ${stage.what}: ${paced(stage.seconds)}; ` +
          (left.length === 0
            ? 'the last build'
            : `then ${left.length} more, ${paced(after)}: ${left.map((next) => next.what).join(', ')}`) +
          (pace === undefined
            ? ''
            : ` (at this machine's pace so far: the builds before took ${pace.toFixed(1)}x their estimates)`),
      );
    },
  };
}
