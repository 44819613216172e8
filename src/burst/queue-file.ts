/**
 * The queue file of `flux-operator burst plan --queue`: a QueueSnapshot as JSON, shaped like the
 * output of `flux jobs -a --json` plus what that command does not print.
 *
 * ```json
 * {
 *   "takenAt": "2026-01-01T12:00:00Z",          // optional, ISO 8601; default: now
 *   "nodes": { "up": 2, "free": 0 },             // brokers online, and online with no job
 *   "jobs": [
 *     { "id": "ƒ2", "state": "SCHED", "nnodes": 6, "ntasks": 6, "ncores": 24, "burstable": true }
 *   ]
 * }
 * ```
 * A job: `id` (string, or the integer `flux jobs --json` prints), `state` (NEW DEPEND PRIORITY SCHED
 * RUN CLEANUP INACTIVE), `nnodes`, `ntasks`, `ncores` (integers >= 0), `burstable` (boolean) or
 * `attributes.system.burstable` (present: burstable), optional `name` and `t_submit` (seconds since
 * the epoch). Other job fields of `flux jobs --json` are ignored; unknown top-level fields are errors.
 * Pure: problems name the source and the field.
 */
import { FLUX_JOB_STATES, type FluxJob, type FluxJobState, type QueueSnapshot } from './queue.ts';
import type { ParseResult } from './policy.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function parseJob(value: unknown, where: string, problems: string[]): FluxJob | undefined {
  if (!isRecord(value)) {
    problems.push(`${where}: must be an object {id, state, nnodes, ntasks, ncores, burstable}`);
    return undefined;
  }
  const start = problems.length;
  const { id, state } = value;
  if (!(typeof id === 'string' && id.length > 0) && !count(id)) {
    problems.push(
      `${where}.id: must be a non-empty string or an integer >= 0, got ${JSON.stringify(id) ?? 'nothing'}`,
    );
  }
  if (typeof state !== 'string' || !(FLUX_JOB_STATES as readonly string[]).includes(state)) {
    problems.push(
      `${where}.state: must be one of ${FLUX_JOB_STATES.join(', ')}, got ${JSON.stringify(state) ?? 'nothing'}`,
    );
  }
  for (const key of ['nnodes', 'ntasks', 'ncores'] as const) {
    if (!count(value[key])) {
      problems.push(
        `${where}.${key}: must be an integer >= 0, got ${JSON.stringify(value[key]) ?? 'nothing'}`,
      );
    }
  }
  const attributes = value.attributes;
  const system = isRecord(attributes) && isRecord(attributes.system) ? attributes.system : undefined;
  if (value.burstable !== undefined && typeof value.burstable !== 'boolean') {
    problems.push(`${where}.burstable: must be true or false, got ${JSON.stringify(value.burstable)}`);
  }
  if (value.name !== undefined && typeof value.name !== 'string') {
    problems.push(`${where}.name: must be a string, got ${JSON.stringify(value.name)}`);
  }
  if (value.t_submit !== undefined && (typeof value.t_submit !== 'number' || !(value.t_submit >= 0))) {
    problems.push(
      `${where}.t_submit: must be seconds since the epoch, got ${JSON.stringify(value.t_submit)}`,
    );
  }
  if (problems.length > start) return undefined;
  return {
    id: String(id),
    state: state as FluxJobState,
    nnodes: value.nnodes as number,
    ntasks: value.ntasks as number,
    ncores: value.ncores as number,
    burstable: value.burstable === true || (system !== undefined && system.burstable !== undefined),
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.t_submit === 'number' ? { submittedAt: value.t_submit } : {}),
  };
}

/** A QueueSnapshot from parsed JSON; `now` is `takenAt` when the file has none. */
export function parseQueueSnapshot(value: unknown, source: string, now: Date): ParseResult<QueueSnapshot> {
  if (!isRecord(value)) {
    return {
      ok: false,
      problems: [`${source}: must be a JSON object {takenAt?, nodes: {up, free}, jobs: [...]}`],
    };
  }
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!['takenAt', 'nodes', 'jobs'].includes(key)) {
      problems.push(`${source}: unknown field ${key}; known fields are takenAt, nodes, jobs`);
    }
  }
  let takenAt = now;
  if (value.takenAt !== undefined) {
    const parsed = typeof value.takenAt === 'string' ? new Date(value.takenAt) : undefined;
    if (parsed === undefined || Number.isNaN(parsed.getTime())) {
      problems.push(`${source}: takenAt: must be an ISO 8601 time, got ${JSON.stringify(value.takenAt)}`);
    } else takenAt = parsed;
  }
  const nodes = value.nodes;
  if (!isRecord(nodes)) {
    problems.push(`${source}: nodes: must be an object {up, free} (brokers online, and online with no job)`);
  } else {
    for (const key of ['up', 'free'] as const) {
      if (!count(nodes[key])) {
        problems.push(
          `${source}: nodes.${key}: must be an integer >= 0, got ${JSON.stringify(nodes[key]) ?? 'nothing'}`,
        );
      }
    }
    if (count(nodes.up) && count(nodes.free) && nodes.free > nodes.up) {
      problems.push(`${source}: nodes.free: ${nodes.free} free nodes but only ${nodes.up} up`);
    }
  }
  const jobs: FluxJob[] = [];
  if (!Array.isArray(value.jobs)) {
    problems.push(`${source}: jobs: must be a list of jobs (the "jobs" of flux jobs -a --json)`);
  } else {
    const seen = new Set<string>();
    value.jobs.forEach((entry: unknown, index) => {
      const job = parseJob(entry, `${source}: jobs[${index}]`, problems);
      if (job === undefined) return;
      if (seen.has(job.id)) problems.push(`${source}: jobs[${index}].id: job ${job.id} is listed twice`);
      seen.add(job.id);
      jobs.push(job);
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  const { up, free } = nodes as { up: number; free: number };
  return { ok: true, value: { takenAt, jobs, nodes: { up, free } } };
}
