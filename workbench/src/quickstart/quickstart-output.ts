/**
 * What the quickstart (`npm start`) prints, as pure functions of what it read from the cluster: one
 * progress line per state of the MiniCluster, when to stop watching, the program's own output out of
 * the lead broker's log, and the closing lines.
 */
import {
  CONDITION_FAILED,
  CONDITION_READY,
  CONDITION_SUCCEEDED,
  type MiniClusterStatus,
} from '../../../src/api/index.ts';
import { staysUp } from '../../../src/flux/index.ts';
import { initialProgram } from '../../../src/render/flux-inputs.ts';
import type { WrittenMiniCluster } from '../../../src/cli/render-command.ts';
import { hubModelOf } from '../../../src/api/index.ts';

/** True when the lead broker's program ends the MiniCluster (Succeeded or Failed), not an instance kept up. */
export function runsToCompletion(miniCluster: WrittenMiniCluster): boolean {
  return !staysUp(initialProgram(hubModelOf(miniCluster)));
}

function conditionOf(status: MiniClusterStatus, type: string) {
  return status.conditions?.find((condition) => condition.type === type && condition.status === 'True');
}

/**
 * `pods running 4/4 | Ready | BrokersRunning: 4/4 brokers running`: the condition that explains the
 * summary (the outcome once there is one, else Ready and why not).
 */
export function progressLine(status: MiniClusterStatus, size: number): string {
  const explaining =
    conditionOf(status, CONDITION_FAILED) ??
    conditionOf(status, CONDITION_SUCCEEDED) ??
    status.conditions?.find((condition) => condition.type === CONDITION_READY);
  const state = explaining ? `${explaining.reason}: ${explaining.message}` : 'waiting for the operator';
  return `pods running ${status.readyPods ?? 0}/${size} | ${status.summary ?? 'Pending'} | ${state}`;
}

/** Whether quickstart stops watching: at an outcome, or at Ready when no outcome is awaited. */
export function finished(status: MiniClusterStatus | undefined, awaitOutcome: boolean): boolean {
  const summary = status?.summary;
  if (summary === 'Succeeded' || summary === 'Failed') return true;
  return summary === 'Ready' && !awaitOutcome;
}

/** `flux-operator: ...`: the entrypoint's own lines (`flux-operator: error: ...` included). */
const ENTRYPOINT_LINE = /^flux-operator: /;

/**
 * A line of Flux's own log, as brokers write it to stderr:
 * `Nov 24 23:09:05.983772 UTC 2026 broker.info[0]: ...` (date, time, zone, year, then
 * `<component>.<level>[<rank>]: `).
 */
const FLUX_LOG_LINE =
  /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)? [A-Z][A-Za-z0-9+-]* \d{4} [\w.-]+\.(?:emerg|alert|crit|err|warning|notice|info|debug)\[\d+\]: /;

/**
 * The program's own output in a lead broker's log: every line but the entrypoint's and Flux's log
 * lines, in order, without the blank lines at either end.
 */
export function programOutput(log: string): string[] {
  const lines = log
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !ENTRYPOINT_LINE.test(line) && !FLUX_LOG_LINE.test(line));
  while (lines.length > 0 && lines[0]?.trim() === '') lines.shift();
  while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  return lines;
}

/** `MiniCluster default/hello-world Succeeded.`, or Failed with the Failed condition's message. */
export function outcomeLine(namespace: string, name: string, status: MiniClusterStatus): string {
  const what = `MiniCluster ${namespace}/${name}`;
  if (status.summary === 'Failed') {
    const failed = conditionOf(status, CONDITION_FAILED);
    return `${what} Failed${failed ? `: ${failed.message}` : ''}.`;
  }
  return `${what} ${status.summary ?? 'Pending'}.`;
}

/** The lead broker's output under a header (or why there is none), ending with how to see all of it. */
export function leadOutputLines(
  pod: string | undefined,
  log: string | undefined,
  kubectl: string,
  namespace: string,
): string[] {
  if (pod === undefined) {
    return ['No lead broker pod is left to show the output of (cleanup: true deletes the pods at the end).'];
  }
  const output = programOutput(log ?? '');
  return [
    `Output of the lead broker (pod ${pod}):`,
    ...(output.length > 0 ? output.map((line) => `  ${line}`) : ['  (nothing)']),
    `Its whole log: ${kubectl} logs -n ${namespace} ${pod}`,
  ];
}
