// Where a MiniCluster's apply-to-done goes, from its lead broker's log as the container runtime stamped
// it (`kubectl logs --timestamps`): each step's first line, in seconds after the apply. The runtime and
// the bench run on one machine, so one clock. Pure.
import { median } from './view-result.ts';

/** The lead pod's steps, in the order they come: the lines that mark them are in LEAD_PHASE_LINES. */
export const LEAD_PHASES = ['entrypoint', 'broker', 'rc1', 'quorum', 'job_end', 'lead_exit'] as const;
export type LeadPhase = (typeof LEAD_PHASES)[number];
export type LeadPhases = Partial<Record<LeadPhase, number>>;

/**
 * What marks each step: the entrypoint's first line (the view in place, or whatever it says first),
 * its own words as it starts the broker, then the broker's state machine (rc1 done; every broker
 * online; the initial program, the command, ended) and the entrypoint's words once the broker exited.
 */
export const LEAD_PHASE_LINES: Readonly<Record<LeadPhase, RegExp>> = {
  entrypoint: /./,
  broker: /flux-operator: starting the lead broker/,
  rc1: /broker\.info\[0\]: rc1-success/,
  quorum: /broker\.info\[0\]: quorum-full/,
  job_end: /broker\.info\[0\]: rc2-success/,
  lead_exit: /flux-operator: the lead broker exited with status/,
};

/** A runtime timestamp (RFC 3339, nanoseconds) as milliseconds; JavaScript's Date reads 3 digits of fraction. */
function stampMs(stamp: string): number | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(stamp);
  if (match === null) return undefined;
  const whole = Date.parse(`${match[1]}Z`);
  const fraction = Number(`0.${match[2] ?? '0'}`);
  return Number.isNaN(whole) ? undefined : whole + fraction * 1000;
}

/** Each step's first line, in seconds after `appliedAtMs` (a wall-clock time); steps not in the log are left out. */
export function leadPhases(timestampedLog: string, appliedAtMs: number): LeadPhases {
  const phases: LeadPhases = {};
  for (const line of timestampedLog.split('\n')) {
    const space = line.indexOf(' ');
    if (space < 0) continue;
    const at = stampMs(line.slice(0, space));
    if (at === undefined) continue;
    const text = line.slice(space + 1);
    for (const phase of LEAD_PHASES) {
      if (phases[phase] === undefined && LEAD_PHASE_LINES[phase].test(text)) {
        phases[phase] = Math.round(at - appliedAtMs) / 1000;
      }
    }
  }
  return phases;
}

/** The log as the program wrote it: each line without the runtime's timestamp. */
export function withoutTimestamps(timestampedLog: string): string {
  return timestampedLog.replace(/^\d{4}-\d\d-\d\dT\S+Z ?/gm, '');
}

/** Each step's median over the runs that logged it (a step no run logged is left out). */
export function medianPhases(runs: readonly LeadPhases[]): LeadPhases {
  const medians: LeadPhases = {};
  for (const phase of LEAD_PHASES) {
    const values = runs.flatMap((run) => (run[phase] === undefined ? [] : [run[phase]]));
    if (values.length > 0) medians[phase] = Math.round(median(values) * 1000) / 1000;
  }
  return medians;
}

/** `entrypoint 1.62, broker 1.75, ...`: the steps of one run, for a progress line. */
export function phaseWords(phases: LeadPhases): string {
  const said = LEAD_PHASES.flatMap((phase) =>
    phases[phase] === undefined ? [] : [`${phase} ${phases[phase].toFixed(2)}`],
  );
  return said.length === 0
    ? 'no step of the lead pod in its log'
    : `its lead pod's steps (s): ${said.join(', ')}`;
}
