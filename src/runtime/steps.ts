/**
 * A reconcile pass as a list of named steps run in order by one helper (Slinky's syncsteps, KubeRay's
 * reconcileFuncs), which logs and times each by name. A step ends in one of three ways:
 * - continue: the next step runs (optionally asking to be looked at again after a delay);
 * - stop: the pass cannot go on (a blocking problem, e.g. an invalid spec or a missing Secret); only
 *   the steps marked `always` still run, and see the problem (status says why, cleanup follows it);
 * - restart: the pass ends at once, nothing else runs, and the object is looked at again after the
 *   delay (a step learned something that changes what the earlier steps decided, or the steps after
 *   it must wait for something it could not do yet).
 * A step that throws ends the pass with that error (the work queue retries it with backoff).
 * Generic: nothing here knows what is being reconciled.
 */

/** Why a pass cannot go on: becomes a condition's reason and message. */
export interface BlockingProblem {
  /** CamelCase, e.g. `SecretMissing`. */
  readonly reason: string;
  /** For humans: what is wrong and how to fix it. Never secret material. */
  readonly message: string;
}

export type StepResult =
  | { readonly next: 'continue'; readonly requeueAfterMs?: number }
  | { readonly next: 'stop'; readonly problem: BlockingProblem; readonly requeueAfterMs?: number }
  | { readonly next: 'restart'; readonly requeueAfterMs: number };

/** The step that stopped a pass, and why. */
export interface Stopped {
  readonly step: string;
  readonly problem: BlockingProblem;
}

export interface Step<C> {
  readonly name: string;
  /** Runs even after an earlier step stopped the pass (status, cleanup). */
  readonly always?: boolean;
  run(context: C, stopped: Stopped | undefined): Promise<StepResult> | StepResult;
}

export interface StepsOutcome {
  readonly stopped?: Stopped;
  /** The step that ended the pass early (see `restart`). */
  readonly restartedBy?: string;
  /** The shortest delay any step asked for; undefined when none did. */
  readonly requeueAfterMs?: number;
}

export interface StepLog {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

export interface RunStepsOptions {
  readonly log: StepLog;
  /** Each step's duration, also when it threw (a per-step histogram). */
  readonly observe?: (step: string, seconds: number) => void;
  /** Milliseconds from a monotonic clock; performance.now by default. */
  readonly clock?: () => number;
}

export const CONTINUE: StepResult = { next: 'continue' };

export function continueAfter(requeueAfterMs: number | undefined): StepResult {
  return requeueAfterMs === undefined ? CONTINUE : { next: 'continue', requeueAfterMs };
}

export function stop(problem: BlockingProblem, requeueAfterMs?: number): StepResult {
  return requeueAfterMs === undefined ? { next: 'stop', problem } : { next: 'stop', problem, requeueAfterMs };
}

export function restart(requeueAfterMs: number): StepResult {
  return { next: 'restart', requeueAfterMs };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

export async function runSteps<C>(
  steps: readonly Step<C>[],
  context: C,
  options: RunStepsOptions,
): Promise<StepsOutcome> {
  const clock = options.clock ?? (() => performance.now());
  let stopped: Stopped | undefined;
  let requeueAfterMs: number | undefined;
  for (const step of steps) {
    if (stopped && !step.always) continue;
    const started = clock();
    const timed = (fields: Record<string, unknown>, message: string) => {
      const ms = clock() - started;
      options.observe?.(step.name, ms / 1000);
      options.log.debug?.({ step: step.name, ms, ...fields }, message);
    };
    let result: StepResult;
    try {
      result = await step.run(context, stopped);
    } catch (error) {
      timed({}, 'step failed');
      throw error;
    }
    timed({ next: result.next }, 'step done');
    requeueAfterMs = earliest(requeueAfterMs, result.requeueAfterMs);
    if (result.next === 'restart') return { restartedBy: step.name, requeueAfterMs: result.requeueAfterMs };
    if (result.next === 'stop' && !stopped) {
      stopped = { step: step.name, problem: result.problem };
      options.log.warn(
        { step: step.name, reason: result.problem.reason, detail: result.problem.message },
        'waiting',
      );
    }
  }
  return {
    ...(stopped ? { stopped } : {}),
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}
