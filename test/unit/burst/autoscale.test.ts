import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideAutoscale, type AutoscaleInput } from '../../../src/burst/autoscale.ts';
import type { FluxJob, FluxJobState, RankStates } from '../../../src/burst/queue.ts';

const NOW_MS = Date.parse('2026-01-01T12:00:00Z');
const SETTINGS = { minSize: 1, maxSize: 4, idleSeconds: 30 };

function waiting(id: string, nnodes: number, state: FluxJobState = 'SCHED'): FluxJob {
  return { id, state, nnodes, ntasks: nnodes, ncores: 0, burstable: false };
}

function running(id: string, ranks: number[]): FluxJob {
  return { id, state: 'RUN', nnodes: ranks.length, ntasks: ranks.length, ncores: 0, burstable: false, ranks };
}

/** Rank states of `size` listed brokers of which `up` are online; allocated = the running jobs' ranks. */
function ranksOf(listed: number, up: number[], jobs: FluxJob[] = [], drained: number[] = []): RankStates {
  const online = new Set(up);
  const allocated = [...new Set(jobs.flatMap((job) => (job.state === 'RUN' ? (job.ranks ?? []) : [])))];
  const all = Array.from({ length: listed }, (_, rank) => rank);
  return {
    up: all.filter((rank) => online.has(rank)),
    down: all.filter((rank) => !online.has(rank)),
    allocated: allocated.sort((a, b) => a - b),
    draining: drained.filter((rank) => allocated.includes(rank)),
    drained: drained.filter((rank) => !allocated.includes(rank)),
  };
}

function decide(overrides: Partial<AutoscaleInput> & { size: number; jobs: FluxJob[] }) {
  return decideAutoscale({
    settings: SETTINGS,
    ranks: ranksOf(SETTINGS.maxSize, [0]),
    lastBusyMs: new Map(),
    nowMs: NOW_MS,
    ...overrides,
  });
}

describe('decideAutoscale: growing', () => {
  it('four one-node jobs on one idle broker: grows to four (one runs on rank 0, three more brokers)', () => {
    const jobs = ['f1', 'f2', 'f3', 'f4'].map((id) => waiting(id, 1));
    const decision = decide({ size: 1, jobs });
    assert.equal(decision.size, 4);
    assert.equal(decision.reason, 'JobsWaiting');
    assert.deepEqual(decision.drain, []);
    assert.match(decision.message, /4 jobs wait for 4 nodes \(1 free, 0 starting\): 1 -> 4 brokers/);
  });

  it('one job running on rank 0 and three waiting: grows by three', () => {
    const jobs = [running('f1', [0]), waiting('f2', 1), waiting('f3', 1), waiting('f4', 1)];
    const decision = decide({ size: 1, jobs, ranks: ranksOf(4, [0], jobs) });
    assert.equal(decision.size, 4);
  });

  it('brokers still starting count as coming: no second grow while they start', () => {
    // size 4 already asked; ranks 1-3 listed down (pods starting); three jobs wait for them.
    const jobs = [running('f1', [0]), waiting('f2', 1), waiting('f3', 1), waiting('f4', 1)];
    const decision = decide({ size: 4, jobs, ranks: ranksOf(4, [0], jobs) });
    assert.equal(decision.size, 4);
    assert.equal(decision.reason, 'Steady');
  });

  it('never beyond maxSize, and says so', () => {
    const jobs = Array.from({ length: 6 }, (_, i) => waiting(`f${i + 1}`, 1));
    const decision = decide({ size: 2, jobs, ranks: ranksOf(4, [0, 1]) });
    // 6 nodes wanted, 2 free: 4 more would be 6 brokers, maxSize is 4.
    assert.equal(decision.size, 4);
    assert.match(decision.message, /\(maxSize 4\)/);
    const atMax = decide({ size: 4, jobs, ranks: ranksOf(4, [0, 1, 2, 3]) });
    assert.equal(atMax.size, 4);
    assert.equal(atMax.reason, 'AtMaxSize');
  });

  it('a job larger than maxSize is left out (it can never run here)', () => {
    const decision = decide({ size: 1, jobs: [waiting('f1', 5)] });
    assert.equal(decision.size, 1);
    assert.equal(decision.reason, 'Steady');
    assert.match(decision.message, /1 ask for more nodes than maxSize 4/);
  });

  it('a job whose node count is unknown counts as one node', () => {
    const jobs = [running('f1', [0]), waiting('f2', 0, 'PRIORITY')];
    const decision = decide({ size: 1, jobs, ranks: ranksOf(4, [0], jobs) });
    assert.equal(decision.size, 2);
  });

  it('a drained rank is not free: the jobs it cannot take make the MiniCluster grow', () => {
    const jobs = [waiting('f1', 2)];
    // Two brokers up, rank 1 drained (by hand): one free, two needed.
    const decision = decide({ size: 2, jobs, ranks: ranksOf(4, [0, 1], [], [1]) });
    assert.equal(decision.size, 3);
  });
});

describe('decideAutoscale: shrinking', () => {
  const idleSince = (seconds: number) => NOW_MS - seconds * 1000;

  it('ranks idle for idleSeconds go from the top, down to minSize, drained first', () => {
    const lastBusyMs = new Map([
      [0, idleSince(100)],
      [1, idleSince(100)],
      [2, idleSince(31)],
      [3, idleSince(30)],
    ]);
    const decision = decide({ size: 4, jobs: [], ranks: ranksOf(4, [0, 1, 2, 3]), lastBusyMs });
    assert.equal(decision.size, 1);
    assert.deepEqual(decision.drain, [1, 2, 3]);
    assert.equal(decision.reason, 'BrokersIdle');
    assert.match(decision.message, /ranks 1-3 had no job for 30s: 4 -> 1 brokers \(minSize 1\)/);
    assert.deepEqual([...decision.lastBusyMs.keys()], [0]);
  });

  it('stops at the highest busy or recently busy rank: only ranks above it go', () => {
    const jobs = [running('f1', [1])];
    const lastBusyMs = new Map([
      [0, idleSince(100)],
      [2, idleSince(29)],
      [3, idleSince(60)],
    ]);
    const decision = decide({ size: 4, jobs, ranks: ranksOf(4, [0, 1, 2, 3], jobs), lastBusyMs });
    // Rank 3 idle 60 s goes; rank 2, busy 29 s ago, stays; rank 1 runs a job.
    assert.equal(decision.size, 3);
    assert.deepEqual(decision.drain, [3]);
    assert.equal(decision.lastBusyMs.get(1), NOW_MS);
  });

  it('never below minSize', () => {
    const lastBusyMs = new Map([
      [0, idleSince(500)],
      [1, idleSince(500)],
      [2, idleSince(500)],
    ]);
    const decision = decide({
      size: 3,
      jobs: [],
      settings: { ...SETTINGS, minSize: 2 },
      ranks: ranksOf(4, [0, 1, 2]),
      lastBusyMs,
    });
    assert.equal(decision.size, 2);
    assert.deepEqual(decision.drain, [2]);
  });

  it('a rank first seen now is busy now: a restarted operator waits idleSeconds before removing it', () => {
    const decision = decide({ size: 4, jobs: [], ranks: ranksOf(4, [0, 1, 2, 3]) });
    assert.equal(decision.size, 4);
    assert.deepEqual([...decision.lastBusyMs.values()], [NOW_MS, NOW_MS, NOW_MS, NOW_MS]);
    const later = decide({
      size: 4,
      jobs: [],
      ranks: ranksOf(4, [0, 1, 2, 3]),
      lastBusyMs: decision.lastBusyMs,
      nowMs: NOW_MS + 30_000,
    });
    assert.equal(later.size, 1);
  });

  it('nothing goes while a job waits, even with idle ranks', () => {
    const jobs = [running('f1', [0]), waiting('f2', 1)];
    const lastBusyMs = new Map([
      [0, NOW_MS],
      [1, idleSince(100)],
    ]);
    const decision = decide({ size: 2, jobs, ranks: ranksOf(4, [0, 1], jobs), lastBusyMs });
    assert.equal(decision.size, 2);
    assert.deepEqual(decision.drain, []);
  });
});
