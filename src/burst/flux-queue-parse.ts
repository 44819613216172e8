/**
 * Strict parsers for what flux-core 0.88 prints about its queue, and the one shell script the operator
 * runs in the lead broker's pod to take a queue snapshot in a single exec round trip.
 *
 * Pure: no I/O, no clock (the snapshot time is a parameter).
 *
 * Facts relied on (flux-core v0.88.0 sources):
 * - `flux jobs --json` prints `{"jobs": [...]}` (src/cmd/flux-jobs.py); each job is `JobInfo.to_dict()`
 *   (src/bindings/python/flux/job/info.py): `id` is the integer job id, `jobid` its F58 string (added
 *   because JSON readers lose precision on ids above 2^53, as `JSON.parse` does), `state` the long state
 *   name (`SCHED`), `t_submit` seconds since the epoch. Unset values are left out: a pending job has no
 *   `nnodes` until R is known unless it asked for nodes (`-N`), and no `ncores` when it asked for
 *   exclusive nodes (`-N` without `-n` implies `--exclusive`), see src/modules/job-list/job_data.c.
 * - `flux job info ID jobspec` prints the current jobspec as JSON (src/cmd/job/info.c);
 *   `flux submit --setattr=burstable` stores `attributes.system.burstable = 1` (VAL defaults to 1, or
 *   any JSON value: doc/man1/common/job-other-options.rst).
 * - `flux resource list -s up,down,allocated -no '{state} {nnodes} {ranks}'` prints one line per
 *   state (also for an empty state), ranks as an RFC 22 idset; `free` = up minus allocated at core
 *   level, so a partly used node is both `free` and `allocated` (src/bindings/python/flux/resource/list.py).
 * - `flux jobs --json` gives a running job's `ranks` as an idset (job-list's job_data.c, from R).
 * - `flux resource status -s drain` lists `draining` (drained, a job still on it) and `drained` ranks,
 *   one line per rank with its reason, a `*` after the state when the rank is offline, and one empty
 *   line for a state with no rank (src/cmd/flux-resource.py, statuslines).
 */
import type { FluxJob, FluxJobState, QueueSnapshot, RankStates } from './queue.ts';
import { FLUX_JOB_STATES } from './queue.ts';
import { BURST_SCRIPTS } from './scripts/files.ts';

/** Output that is not what flux-core prints; `where` names the part (job index, field, line). */
export class FluxQueueParseError extends Error {
  override name = 'FluxQueueParseError';
  readonly where: string;
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.where = where;
  }
}

/** A job as `flux jobs --json` lists it: everything but the burstable flag, which is in the jobspec. */
export type FluxJobListing = Omit<FluxJob, 'burstable'>;

/** Brokers of the instance that are online, and online ones with nothing allocated on them. */
export interface ResourceCounts {
  readonly up: number;
  readonly free: number;
}

/** Exit code of the snapshot script when flux is missing or a flux command fails (sysexits EX_UNAVAILABLE). */
export const FLUX_UNAVAILABLE_EXIT_CODE = 69;

/** Version of the snapshot script's output document. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/**
 * The snapshot script, scripts/flux-queue.sh: `sh -c SCRIPT flux-queue [FLUX_URI]` prints one JSON
 * document of the jobs, their jobspecs and the resources, in version SNAPSHOT_FORMAT_VERSION, or exits with FLUX_UNAVAILABLE_EXIT_CODE (see the script).
 */
export function fluxQueueScript(): string {
  return BURST_SCRIPTS.text('flux-queue.sh');
}

// ---------------------------------------------------------------------------------------------------
// Job ids (RFC 19 F58)

const F58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const F58_BODY = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Encodes a job id as F58 with the ASCII prefix (`f`), as `{id.f58plain}` prints it. */
export function f58plain(id: bigint): string {
  if (id < 0n) throw new RangeError(`negative job id ${id}`);
  let digits = '';
  let rest = id;
  do {
    digits = F58_ALPHABET[Number(rest % 58n)] + digits;
    rest /= 58n;
  } while (rest > 0n);
  return `f${digits}`;
}

/**
 * Reads an F58 job id (`ƒ` or `f` prefix) as the number it encodes, and its canonical `f` form;
 * undefined when it is not one.
 */
export function decodeF58(text: string): { value: bigint; plain: string } | undefined {
  const body = text.startsWith('ƒ') || text.startsWith('f') ? text.slice(1) : undefined;
  if (body === undefined || !F58_BODY.test(body) || body.length > 11) return undefined;
  let value = 0n;
  for (const c of body) value = value * 58n + BigInt(F58_ALPHABET.indexOf(c));
  if (value >= 1n << 64n) return undefined;
  return { value, plain: `f${body}` };
}

// ---------------------------------------------------------------------------------------------------
// Small validators

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function parseJson(text: string, where: string): Json {
  if (typeof text !== 'string') throw new FluxQueueParseError(where, `expected text, got ${typeof text}`);
  if (text.trim() === '') throw new FluxQueueParseError(where, 'empty output');
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    throw new FluxQueueParseError(where, `not JSON: ${(err as Error).message}; begins ${show(text)}`);
  }
}

/** A short, printable rendering of a bad value for error messages. */
function show(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === undefined) text = 'undefined';
  else text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: Json | undefined): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${show(value)}`;
}

function objectAt(value: Json | undefined, where: string): JsonObject {
  if (!isObject(value)) throw new FluxQueueParseError(where, `expected an object, got ${kind(value)}`);
  return value;
}

function countAt(value: Json | undefined, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new FluxQueueParseError(where, `expected a non-negative integer, got ${kind(value)}`);
  return value;
}

// ---------------------------------------------------------------------------------------------------
// flux jobs --json

/**
 * Parses `flux jobs --json` (with any filter): `{"jobs": [...]}`. Required per job: `id` (integer) and
 * `state` (an RFC 21 state name); `jobid` (F58) when present must encode `id`. `nnodes`, `ntasks`,
 * `ncores` must be non-negative integers when present; flux leaves them out while unknown (see the
 * module comment) and they are then 0. The job id returned is the F58 `f…` form.
 */
export function parseFluxJobs(text: string): FluxJobListing[] {
  return jobsFrom(parseJson(text, 'flux jobs'), 'flux jobs');
}

function jobsFrom(document: Json, where: string): FluxJobListing[] {
  const top = objectAt(document, where);
  const list = top.jobs;
  if (!Array.isArray(list))
    throw new FluxQueueParseError(`${where}: jobs`, `expected an array, got ${kind(list)}`);
  const seen = new Map<string, number>();
  return list.map((entry, index) => {
    const at = `${where}: jobs[${index}]`;
    const job = jobFrom(entry, at);
    const earlier = seen.get(job.id);
    if (earlier !== undefined)
      throw new FluxQueueParseError(`${at}.id`, `job ${job.id} listed twice (also jobs[${earlier}])`);
    seen.set(job.id, index);
    return job;
  });
}

function jobFrom(entry: Json, at: string): FluxJobListing {
  const job = objectAt(entry, at);
  const rawId = job.id;
  if (typeof rawId !== 'number' || !Number.isInteger(rawId) || rawId < 0)
    throw new FluxQueueParseError(`${at}.id`, `expected a non-negative integer job id, got ${kind(rawId)}`);
  let id: string;
  if (job.jobid !== undefined) {
    const decoded = typeof job.jobid === 'string' ? decodeF58(job.jobid) : undefined;
    if (decoded === undefined)
      throw new FluxQueueParseError(`${at}.jobid`, `expected an F58 job id, got ${kind(job.jobid)}`);
    // Above 2^53 the integer has lost precision in JSON.parse: only the F58 form is exact.
    if (Number.isSafeInteger(rawId) && decoded.value !== BigInt(rawId))
      throw new FluxQueueParseError(`${at}.jobid`, `${show(job.jobid)} does not encode id ${rawId}`);
    id = decoded.plain;
  } else {
    if (!Number.isSafeInteger(rawId))
      throw new FluxQueueParseError(`${at}.id`, `${rawId} is too large to be exact and there is no jobid`);
    id = f58plain(BigInt(rawId));
  }
  const state = job.state;
  if (typeof state !== 'string' || !(FLUX_JOB_STATES as readonly string[]).includes(state))
    throw new FluxQueueParseError(
      `${at}.state`,
      `expected one of ${FLUX_JOB_STATES.join(', ')}, got ${kind(state)}`,
    );
  const optionalCount = (field: 'nnodes' | 'ntasks' | 'ncores') =>
    job[field] === undefined ? 0 : countAt(job[field], `${at}.${field}`);
  const listing: { -readonly [K in keyof FluxJobListing]: FluxJobListing[K] } = {
    id,
    state: state as FluxJobState,
    nnodes: optionalCount('nnodes'),
    ntasks: optionalCount('ntasks'),
    ncores: optionalCount('ncores'),
  };
  if (job.name !== undefined) {
    if (typeof job.name !== 'string')
      throw new FluxQueueParseError(`${at}.name`, `expected a string, got ${kind(job.name)}`);
    listing.name = job.name;
  }
  if (job.ranks !== undefined) {
    if (typeof job.ranks !== 'string')
      throw new FluxQueueParseError(`${at}.ranks`, `expected an idset, got ${kind(job.ranks)}`);
    listing.ranks = [...parseIdset(job.ranks, `${at}.ranks`)].sort((a, b) => a - b);
  }
  if (job.t_submit !== undefined) {
    if (typeof job.t_submit !== 'number' || !Number.isFinite(job.t_submit) || job.t_submit < 0)
      throw new FluxQueueParseError(
        `${at}.t_submit`,
        `expected seconds since the epoch, got ${kind(job.t_submit)}`,
      );
    listing.submittedAt = job.t_submit;
  }
  return listing;
}

// ---------------------------------------------------------------------------------------------------
// Jobspec

/**
 * Whether a jobspec (`flux job info ID jobspec`) marks the job burstable: `attributes.system.burstable`
 * absent is false; `true`/`false`; a number is true unless 0 (`--setattr=burstable` stores 1). Any
 * other value is an error, as is a jobspec without `attributes.system`.
 */
export function parseJobspecBurstable(text: string): boolean {
  return burstableFrom(parseJson(text, 'jobspec'), 'jobspec');
}

function burstableFrom(document: Json, where: string): boolean {
  const spec = objectAt(document, where);
  const attributes = objectAt(spec.attributes, `${where}.attributes`);
  const system = objectAt(attributes.system, `${where}.attributes.system`);
  const value = system.burstable;
  if (value === undefined || typeof value === 'boolean') return value === true;
  if (typeof value === 'number' && Number.isFinite(value)) return value !== 0;
  throw new FluxQueueParseError(
    `${where}.attributes.system.burstable`,
    `expected a boolean or a number, got ${kind(value)}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// flux resource list

const RESOURCE_LINE = /^(\S+) (\S+)(?: (\S*))?$/;
const KNOWN_RESOURCE_STATES = ['up', 'down', 'allocated', 'free', 'all'];
/** Rank sets larger than this are taken as garbage. */
const MAX_RANKS = 1_000_000;

/** Decodes an RFC 22 idset (`0-3,5`, optionally in brackets; empty is the empty set). */
export function parseIdset(text: string, where = 'idset'): Set<number> {
  const body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const ids = new Set<number>();
  if (body === '') return ids;
  for (const term of body.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(term);
    if (!match) throw new FluxQueueParseError(where, `bad idset ${show(text)}: term ${show(term)}`);
    const lo = Number(match[1]);
    const hi = match[2] === undefined ? lo : Number(match[2]);
    if (hi < lo || hi - lo >= MAX_RANKS || ids.size + hi - lo >= MAX_RANKS)
      throw new FluxQueueParseError(where, `bad idset ${show(text)}: range ${show(term)}`);
    for (let id = lo; id <= hi; id++) ids.add(id);
  }
  return ids;
}

/** Encodes ranks as an RFC 22 idset (`0-3,5`), ascending, without duplicates; empty for none. */
export function formatIdset(ranks: Iterable<number>): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  for (const rank of sorted)
    if (!Number.isSafeInteger(rank) || rank < 0) throw new RangeError(`not a rank: ${rank}`);
  const terms: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    terms.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return terms.join(',');
}

/**
 * Parses `flux resource list -s up,allocated -no '{state} {nnodes} {ranks}'`: exactly one `up` and one
 * `allocated` line (other states are ignored), `nnodes` equal to the number of ranks. Up is the
 * number of up ranks; free the up ranks with nothing allocated on them.
 */
export function parseResourceCounts(text: string): ResourceCounts {
  const sets = parseResourceSets(text);
  const up = sets.get('up');
  const allocated = sets.get('allocated');
  if (up === undefined) throw new FluxQueueParseError('flux resource list', `no 'up' line in ${show(text)}`);
  if (allocated === undefined)
    throw new FluxQueueParseError('flux resource list', `no 'allocated' line in ${show(text)}`);
  let free = 0;
  for (const rank of up) if (!allocated.has(rank)) free++;
  return { up: up.size, free };
}

/** The rank set of each state `flux resource list -no '{state} {nnodes} {ranks}'` printed. */
export function parseResourceSets(text: string): Map<string, Set<number>> {
  if (typeof text !== 'string')
    throw new FluxQueueParseError('flux resource list', `expected text, got ${typeof text}`);
  const sets = new Map<string, Set<number>>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line === '') return;
    const where = `flux resource list: line ${index + 1}`;
    const match = RESOURCE_LINE.exec(line);
    if (!match)
      throw new FluxQueueParseError(where, `expected '<state> <nnodes> <ranks>', got ${show(line)}`);
    const state = match[1] ?? '';
    const nnodesText = match[2] ?? '';
    const ranksText = match[3] ?? '';
    if (!KNOWN_RESOURCE_STATES.includes(state))
      throw new FluxQueueParseError(where, `unknown state ${show(state)}`);
    if (!/^\d+$/.test(nnodesText))
      throw new FluxQueueParseError(
        where,
        `nnodes: expected a non-negative integer, got ${show(nnodesText)}`,
      );
    const ranks = parseIdset(ranksText, `${where}: ranks`);
    if (Number(nnodesText) !== ranks.size)
      throw new FluxQueueParseError(
        where,
        `nnodes ${nnodesText} but ${ranks.size} ranks in ${show(ranksText)} (one broker per node expected)`,
      );
    if (sets.has(state)) throw new FluxQueueParseError(where, `second line for state ${state}`);
    sets.set(state, ranks);
  });
  return sets;
}

const DRAIN_LINE = /^(draining|drained)(\*?)(?: (\S*))?$/;

/**
 * Parses `flux resource status -s drain -no '{state} {ranks}'`: lines `draining <ranks>` and
 * `drained <ranks>` (`*` after the state: the ranks are offline; an empty line per state when none
 * is), one per rank or per group; the union of each state's ranks.
 */
export function parseDrainLines(lines: readonly string[]): { draining: Set<number>; drained: Set<number> } {
  const result = { draining: new Set<number>(), drained: new Set<number>() };
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `flux resource status: line ${index + 1}`;
    const match = DRAIN_LINE.exec(line);
    if (!match)
      throw new FluxQueueParseError(where, `expected 'draining|drained <ranks>', got ${show(line)}`);
    const state = match[1] === 'draining' ? 'draining' : 'drained';
    for (const rank of parseIdset(match[3] ?? '', `${where}: ranks`)) result[state].add(rank);
  });
  return result;
}

const ascending = (set: Iterable<number>): number[] => [...set].sort((a, b) => a - b);

// ---------------------------------------------------------------------------------------------------
// The snapshot script's document

/**
 * Parses the output of fluxQueueScript() into a snapshot taken at `takenAt`. A job's burstable flag
 * comes from its jobspec; a listed job without one (the script fetches them for SCHED and RUN jobs, and
 * one may have ended between the two listings) is not burstable. Jobspecs of unlisted jobs are ignored.
 */
export function parseSnapshotOutput(text: string, takenAt: Date): QueueSnapshot {
  const top = objectAt(parseJson(text, 'snapshot'), 'snapshot');
  if (top.version !== SNAPSHOT_FORMAT_VERSION)
    throw new FluxQueueParseError(
      'snapshot.version',
      `expected ${SNAPSHOT_FORMAT_VERSION}, got ${kind(top.version)}`,
    );
  const listings = jobsFrom(top.jobs ?? null, 'snapshot.jobs');
  const specs = objectAt(top.jobspecs, 'snapshot.jobspecs');
  const burstable = new Map<string, boolean>();
  for (const [key, spec] of Object.entries(specs)) {
    const decoded = decodeF58(key);
    if (decoded === undefined)
      throw new FluxQueueParseError('snapshot.jobspecs', `key ${show(key)} is not an F58 job id`);
    burstable.set(decoded.plain, burstableFrom(spec, `snapshot.jobspecs[${key}]`));
  }
  const resources = top.resources;
  if (!Array.isArray(resources) || !resources.every((line) => typeof line === 'string'))
    throw new FluxQueueParseError(
      'snapshot.resources',
      `expected an array of strings, got ${kind(resources)}`,
    );
  const nodes = parseResourceCounts(resources.join('\n'));
  const jobs: FluxJob[] = listings.map((listing) => ({
    ...listing,
    burstable: burstable.get(listing.id) ?? false,
  }));
  // Older scripts printed neither `down` nor the drain lines: no rank states then.
  const sets = parseResourceSets(resources.join('\n'));
  const down = sets.get('down');
  if (top.drain === undefined || down === undefined) return { takenAt, jobs, nodes };
  if (!Array.isArray(top.drain) || !top.drain.every((line) => typeof line === 'string'))
    throw new FluxQueueParseError('snapshot.drain', `expected an array of strings, got ${kind(top.drain)}`);
  const drain = parseDrainLines(top.drain as string[]);
  const ranks: RankStates = {
    up: ascending(sets.get('up') ?? []),
    down: ascending(down),
    allocated: ascending(sets.get('allocated') ?? []),
    draining: ascending(drain.draining),
    drained: ascending(drain.drained),
  };
  return { takenAt, jobs, nodes, ranks };
}
