// A run's builds (a first run's above all): what the cache lacks and will be built (the control plane, the real node's
// binaries, image groups), said once with how long it takes in all, then one line as each build starts
// with what is left after it. Pure but for the `say` it is given.

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

export function firstRunPlan(stages: readonly BuildStage[], say: (line: string) => void): FirstRunPlan {
  const total = stages.reduce((sum, stage) => sum + stage.seconds, 0);
  const started = new Set<string>();
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
      started.add(key);
      const left = stages.slice(index + 1).filter((next) => !started.has(next.key));
      const after = left.reduce((sum, next) => sum + next.seconds, 0);
      say(
        `[build ${index + 1}/${stages.length}] ${stage.what}: ${duration(stage.seconds)}; ` +
          (left.length === 0
            ? 'the last build'
            : `then ${left.length} more, ${duration(after)}: ${left.map((next) => next.what).join(', ')}`),
      );
    },
  };
}
