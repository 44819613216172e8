// What the bench reads of an operator process: its /metrics (Prometheus text) and /proc.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** The sum of a metric's samples over all its labels (0 when it is absent). */
export function sumMetric(text: string, metric: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** A metric's values by one label, summed over the others (e.g. requests by method). */
export function metricByLabel(text: string, metric: string, label: string): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const key = new RegExp(`[{,]${label}="([^"]*)"`).exec(line)?.[1] ?? '';
    totals[key] = (totals[key] ?? 0) + Number(line.split(' ').pop());
  }
  return totals;
}

export async function metricsTotal(port: number, metric: string): Promise<number> {
  return sumMetric(await metricsText(port), metric);
}

export async function metricsByLabel(
  port: number,
  metric: string,
  label: string,
): Promise<Record<string, number>> {
  return metricByLabel(await metricsText(port), metric, label);
}

/**
 * A count read from /metrics once it has not changed for `quietMs` (at most `capMs` after the call),
 * and how long after the call it last changed.
 */
export async function settled(
  read: () => Promise<number>,
  quietMs: number,
  capMs = Number.POSITIVE_INFINITY,
): Promise<{ total: number; afterMs: number }> {
  const started = performance.now();
  let total = await read();
  let changedAt = started;
  while (performance.now() - changedAt < quietMs && performance.now() - started < capMs) {
    await sleep(250);
    const now = await read();
    if (now !== total) {
      total = now;
      changedAt = performance.now();
    }
  }
  return { total, afterMs: changedAt - started };
}

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s on Linux). */
export function cpuSeconds(pid: number): number {
  // The fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory now and at its peak (VmHWM), in MiB. */
export function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

export function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * A number the operator logs once: `field` of its first JSON log line whose message is `msg` (a port
 * it listens on), waited for up to `timeoutMs`; fails with `failure` and the output so far.
 */
export async function loggedNumber(
  output: () => string,
  msg: string,
  field: string,
  failure: string,
  timeoutMs = 30_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = output()
      .split('\n')
      .find((candidate) => candidate.includes(`"msg":"${msg}"`));
    if (line) return (JSON.parse(line) as Record<string, number>)[field] ?? NaN;
    await sleep(100);
  }
  throw new Error(`${failure}:\n${output()}`);
}
