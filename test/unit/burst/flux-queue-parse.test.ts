// Parsers of flux-core 0.88 queue output, and the snapshot script (shellcheck, and run with a fake flux).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  FLUX_UNAVAILABLE_EXIT_CODE,
  FluxQueueParseError,
  decodeF58,
  f58plain,
  fluxQueueScript,
  formatIdset,
  parseFluxJobs,
  parseIdset,
  parseJobspecBurstable,
  parseResourceCounts,
  parseSnapshotOutput,
} from '../../../src/burst/flux-queue-parse.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/flux-queue/', import.meta.url));
const QUEUE = join(FIXTURES, 'queue');
const read = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');
const FLUX_QUEUE_SCRIPT = fluxQueueScript();

function throwsParse(fn: () => unknown, where: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FluxQueueParseError, `expected FluxQueueParseError, got ${String(err)}`);
    assert.equal(err.where, where);
    assert.match(err.message, message);
    return true;
  });
}

test('F58 job ids: encode, decode with either prefix, reject others', () => {
  assert.equal(f58plain(0n), 'f1');
  assert.equal(f58plain(57n), 'fz');
  assert.equal(f58plain(58n), 'f21');
  assert.equal(f58plain(67108864000002n), 'fXPqVWUVP');
  assert.deepEqual(decodeF58('ƒXPqVWUVP'), { value: 67108864000002n, plain: 'fXPqVWUVP' });
  assert.deepEqual(decodeF58('f2ahuK1vwXS'), { value: 11744051200000005n, plain: 'f2ahuK1vwXS' });
  assert.equal(decodeF58('fO0'), undefined); // 0 and O are not in the alphabet
  assert.equal(decodeF58('XPqVWUVP'), undefined);
  assert.equal(decodeF58('f'), undefined);
  assert.equal(decodeF58('fjpXCZedGfVQ')?.value, 2n ** 64n - 1n);
  assert.equal(decodeF58(f58plain(2n ** 64n)), undefined); // does not fit 64 bits
});

test('flux jobs --json: every job, missing counts as 0, exact ids beyond 2^53', () => {
  const jobs = parseFluxJobs(read('queue/jobs.out'));
  assert.deepEqual(jobs, [
    {
      id: 'fXPqVWUVP',
      state: 'SCHED',
      nnodes: 4,
      ntasks: 4,
      ncores: 0,
      name: 'burst-job',
      submittedAt: 1767229600,
    },
    {
      id: 'f2ahuK1vwXS',
      state: 'SCHED',
      nnodes: 3,
      ntasks: 6,
      ncores: 6,
      name: 'mpi-app',
      submittedAt: 1767925600,
    },
    {
      id: 'fY9uc2DEA',
      state: 'SCHED',
      nnodes: 0,
      ntasks: 8,
      ncores: 8,
      name: 'hostname',
      submittedAt: 1767229700,
    },
    {
      id: 'fV7d9yGH6',
      state: 'RUN',
      nnodes: 1,
      ntasks: 2,
      ncores: 2,
      name: 'sleep',
      ranks: [2],
      submittedAt: 1767229300,
    },
    {
      id: 'fUMZ3TXYK',
      state: 'RUN',
      nnodes: 2,
      ntasks: 2,
      ncores: 16,
      name: 'sleep',
      ranks: [0, 1],
      submittedAt: 1767229200,
    },
  ]);
  assert.deepEqual(parseFluxJobs('{"jobs": []}\n'), []);
  // Without jobid the integer is encoded; only id and state are required.
  assert.deepEqual(parseFluxJobs('{"jobs": [{"id": 58, "state": "PRIORITY"}]}'), [
    { id: 'f21', state: 'PRIORITY', nnodes: 0, ntasks: 0, ncores: 0 },
  ]);
});

test('flux jobs --json: each defect names the job and the field', () => {
  const job = (fields: Record<string, unknown>) =>
    JSON.stringify({
      jobs: [
        { id: 58, jobid: 'ƒ21', state: 'SCHED', nnodes: 1 },
        { id: 59, jobid: 'f22', state: 'SCHED', ...fields },
      ],
    });
  throwsParse(() => parseFluxJobs(''), 'flux jobs', /empty output/);
  throwsParse(
    () => parseFluxJobs('flux-jobs: ERROR: oops'),
    'flux jobs',
    /not JSON: .*begins "flux-jobs: ERROR: oops"/,
  );
  throwsParse(() => parseFluxJobs('[]'), 'flux jobs', /expected an object, got an array/);
  throwsParse(() => parseFluxJobs('{"jobs": {}}'), 'flux jobs: jobs', /expected an array, got an object/);
  throwsParse(() => parseFluxJobs('{"jobs": [3]}'), 'flux jobs: jobs[0]', /expected an object, got number 3/);
  throwsParse(
    () => parseFluxJobs(job({ id: undefined })),
    'flux jobs: jobs[1].id',
    /non-negative integer job id, got undefined/,
  );
  throwsParse(() => parseFluxJobs(job({ id: '59' })), 'flux jobs: jobs[1].id', /got string "59"/);
  throwsParse(() => parseFluxJobs(job({ id: -1 })), 'flux jobs: jobs[1].id', /got number -1/);
  throwsParse(
    () => parseFluxJobs(job({ jobid: 'f0' })),
    'flux jobs: jobs[1].jobid',
    /expected an F58 job id, got string "f0"/,
  );
  throwsParse(
    () => parseFluxJobs(job({ jobid: 'f23' })),
    'flux jobs: jobs[1].jobid',
    /"f23" does not encode id 59/,
  );
  throwsParse(
    () => parseFluxJobs(job({ state: 'S' })),
    'flux jobs: jobs[1].state',
    /expected one of NEW, .*INACTIVE, got string "S"/,
  );
  throwsParse(() => parseFluxJobs(job({ state: undefined })), 'flux jobs: jobs[1].state', /got undefined/);
  throwsParse(
    () => parseFluxJobs(job({ nnodes: 'four' })),
    'flux jobs: jobs[1].nnodes',
    /non-negative integer, got string "four"/,
  );
  throwsParse(() => parseFluxJobs(job({ ntasks: 1.5 })), 'flux jobs: jobs[1].ntasks', /got number 1.5/);
  throwsParse(() => parseFluxJobs(job({ ncores: null })), 'flux jobs: jobs[1].ncores', /got null/);
  throwsParse(
    () => parseFluxJobs(job({ name: 7 })),
    'flux jobs: jobs[1].name',
    /expected a string, got number 7/,
  );
  throwsParse(
    () => parseFluxJobs(job({ t_submit: 'now' })),
    'flux jobs: jobs[1].t_submit',
    /seconds since the epoch/,
  );
  throwsParse(
    () => parseFluxJobs(job({ id: 58, jobid: 'f21' })),
    'flux jobs: jobs[1].id',
    /job f21 listed twice \(also jobs\[0\]\)/,
  );
  throwsParse(
    () => parseFluxJobs('{"jobs": [{"id": 11744051200000005, "state": "SCHED"}]}'),
    'flux jobs: jobs[0].id',
    /too large to be exact and there is no jobid/,
  );
});

test('jobspec: attributes.system.burstable as flux submit --setattr stores it', () => {
  const ids = readdirSync(join(QUEUE, 'jobspec')).sort();
  assert.deepEqual(
    Object.fromEntries(
      ids.map((file) => [file, parseJobspecBurstable(readFileSync(join(QUEUE, 'jobspec', file), 'utf8'))]),
    ),
    {
      'f2ahuK1vwXS.out': true, // --setattr=burstable=true
      'fUMZ3TXYK.out': false, // --setattr=burstable=0
      'fV7d9yGH6.out': false, // absent
      'fXPqVWUVP.out': true, // --setattr=burstable (1)
      'fY9uc2DEA.out': false, // absent
    },
  );
  const spec = (system: unknown) => JSON.stringify({ version: 1, attributes: { system } });
  assert.equal(parseJobspecBurstable(spec({ duration: 0, burstable: 2 })), true);
  assert.equal(parseJobspecBurstable(spec({ duration: 0, burstable: false })), false);
  throwsParse(
    () => parseJobspecBurstable(spec({ burstable: 'yes' })),
    'jobspec.attributes.system.burstable',
    /boolean or a number, got string "yes"/,
  );
  throwsParse(
    () => parseJobspecBurstable(spec({ burstable: null })),
    'jobspec.attributes.system.burstable',
    /got null/,
  );
  throwsParse(
    () => parseJobspecBurstable(spec(undefined)),
    'jobspec.attributes.system',
    /expected an object, got undefined/,
  );
  throwsParse(
    () => parseJobspecBurstable('{"version": 1}'),
    'jobspec.attributes',
    /expected an object, got undefined/,
  );
  throwsParse(() => parseJobspecBurstable('flux-job: No such file'), 'jobspec', /not JSON/);
});

test('idsets (RFC 22)', () => {
  assert.deepEqual([...parseIdset('')], []);
  assert.deepEqual([...parseIdset('0-3,5')], [0, 1, 2, 3, 5]);
  assert.deepEqual([...parseIdset('[0-1]')], [0, 1]);
  assert.throws(() => parseIdset('3-1'), /bad idset "3-1": range "3-1"/);
  assert.throws(() => parseIdset('0,,1'), /term ""/);
  assert.throws(() => parseIdset('0-99999999'), /range/);
});

test('flux resource list: up ranks, and up ranks with nothing allocated', () => {
  assert.deepEqual(parseResourceCounts(read('queue/resources.txt')), { up: 4, free: 1 });
  assert.deepEqual(parseResourceCounts('up 0 \nallocated 0 \n'), { up: 0, free: 0 });
  assert.deepEqual(parseResourceCounts('allocated 1 3\nup 3 0,2-3\ndown 5 1,4-7'), { up: 3, free: 2 });
  throwsParse(
    () => parseResourceCounts('up 4 0-3'),
    'flux resource list',
    /no 'allocated' line in "up 4 0-3"/,
  );
  throwsParse(() => parseResourceCounts('allocated 0'), 'flux resource list', /no 'up' line/);
  throwsParse(
    () => parseResourceCounts('up 4 0-3\nallocated 0\nbusy 1 2'),
    'flux resource list: line 3',
    /unknown state "busy"/,
  );
  throwsParse(
    () => parseResourceCounts('up four 0-3\nallocated 0'),
    'flux resource list: line 1',
    /nnodes: expected a non-negative integer, got "four"/,
  );
  throwsParse(
    () => parseResourceCounts('up 3 0-3\nallocated 0'),
    'flux resource list: line 1',
    /nnodes 3 but 4 ranks in "0-3"/,
  );
  throwsParse(
    () => parseResourceCounts('up 4 0-3\nup 4 0-3\nallocated 0'),
    'flux resource list: line 2',
    /second line for state up/,
  );
  throwsParse(
    () => parseResourceCounts('STATE NNODES RANKS X'),
    'flux resource list: line 1',
    /expected '<state> <nnodes> <ranks>'/,
  );
  throwsParse(
    () => parseResourceCounts('up 2 a-b\nallocated 0'),
    'flux resource list: line 1: ranks',
    /bad idset "a-b"/,
  );
});

test('the snapshot document: jobs with their burstable flags, and node counts', () => {
  const takenAt = new Date('2026-01-01T12:00:00Z');
  const snapshot = parseSnapshotOutput(read('snapshot.out'), takenAt);
  assert.equal(snapshot.takenAt, takenAt);
  assert.deepEqual(
    snapshot.jobs.map((j) => [j.id, j.state, j.burstable]),
    [
      ['fXPqVWUVP', 'SCHED', true],
      ['f2ahuK1vwXS', 'SCHED', true],
      ['fY9uc2DEA', 'SCHED', false],
      ['fV7d9yGH6', 'RUN', false],
      ['fUMZ3TXYK', 'RUN', false],
    ],
  );
  assert.deepEqual(snapshot.nodes, { up: 4, free: 1 });
  // The running jobs' ranks (`ranks` of flux jobs), and each rank's state.
  assert.deepEqual(
    snapshot.jobs.filter((j) => j.state === 'RUN').map((j) => j.ranks),
    [[2], [0, 1]],
  );
  assert.deepEqual(snapshot.ranks, {
    up: [0, 1, 2, 3],
    down: [],
    allocated: [0, 1, 2],
    draining: [2],
    drained: [],
  });
  const doc = (over: Record<string, unknown>) =>
    JSON.stringify({
      version: 1,
      jobs: { jobs: [{ id: 58, state: 'SCHED' }] },
      jobspecs: {},
      resources: ['up 1 0', 'allocated 0 '],
      ...over,
    });
  // A listed job without a jobspec is not burstable; jobspecs of unlisted jobs are ignored.
  assert.deepEqual(
    parseSnapshotOutput(doc({ jobspecs: { f22: { attributes: { system: { burstable: 1 } } } } }), takenAt)
      .jobs,
    [{ id: 'f21', state: 'SCHED', nnodes: 0, ntasks: 0, ncores: 0, burstable: false }],
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ version: 2 }), takenAt),
    'snapshot.version',
    /expected 1, got number 2/,
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ jobs: undefined }), takenAt),
    'snapshot.jobs',
    /expected an object, got null/,
  );
  throwsParse(
    () =>
      parseSnapshotOutput(
        doc({ jobspecs: { f21: { attributes: { system: { burstable: 'x' } } } } }),
        takenAt,
      ),
    'snapshot.jobspecs[f21].attributes.system.burstable',
    /got string "x"/,
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ jobspecs: { '12': {} } }), takenAt),
    'snapshot.jobspecs',
    /key "12" is not an F58 job id/,
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ resources: 'up 1 0' }), takenAt),
    'snapshot.resources',
    /array of strings/,
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ resources: ['up 1 0'] }), takenAt),
    'flux resource list',
    /no 'allocated' line/,
  );
  throwsParse(() => parseSnapshotOutput('{"version":1,"jobs":', takenAt), 'snapshot', /not JSON/);
  // Without the drain lines (an older script): no rank states.
  assert.equal(parseSnapshotOutput(doc({}), takenAt).ranks, undefined);
  assert.deepEqual(
    parseSnapshotOutput(
      doc({ resources: ['up 1 0', 'down 1 1', 'allocated 0 '], drain: ['drained* 1', 'draining '] }),
      takenAt,
    ).ranks,
    { up: [0], down: [1], allocated: [], draining: [], drained: [1] },
  );
  throwsParse(
    () =>
      parseSnapshotOutput(
        doc({ resources: ['up 1 0', 'down 0 ', 'allocated 0 '], drain: ['offline 1'] }),
        takenAt,
      ),
    'flux resource status: line 1',
    /expected 'draining\|drained <ranks>', got "offline 1"/,
  );
  throwsParse(
    () => parseSnapshotOutput(doc({ jobs: { jobs: [{ id: 58, state: 'RUN', ranks: 3 }] } }), takenAt),
    'snapshot.jobs: jobs[0].ranks',
    /expected an idset, got number 3/,
  );
});

test('idsets are written the way Flux reads them', () => {
  assert.equal(formatIdset([]), '');
  assert.equal(formatIdset([3, 1, 2, 2, 7, 9, 8]), '1-3,7-9');
  assert.equal(formatIdset([5]), '5');
  assert.deepEqual([...parseIdset(formatIdset([0, 2, 3, 4, 10]))], [0, 2, 3, 4, 10]);
  assert.throws(() => formatIdset([-1]), /not a rank: -1/);
});

test('the snapshot script drains and undrains as asked before it reads, and refuses what is no idset', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flux-queue-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The fake flux keeps the drains in its scenario folder: a copy of the fixture's.
  cpSync(QUEUE, join(dir, 'queue'), { recursive: true });
  const log = join(dir, 'calls');
  const env = {
    PATH: `${join(FIXTURES, 'bin')}:/usr/bin:/bin`,
    FAKE_FLUX_DIR: join(dir, 'queue'),
    FAKE_FLUX_LOG: log,
  };
  const out = execFileSync('sh', ['-c', FLUX_QUEUE_SCRIPT, 'flux-queue', 'local:///x', '2-3', '1'], {
    env,
    encoding: 'utf8',
  });
  // The snapshot is read after the actions: ranks 2-3 show drained.
  assert.equal(
    out,
    read('snapshot.out').replace('"drain":["draining 2","drained "]', '"drain":["draining ","drained 2-3"]'),
  );
  assert.deepEqual(parseSnapshotOutput(out, new Date()).ranks?.drained, [2, 3]);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  const undrain = calls.findIndex((c) => c.startsWith('local:///x resource undrain --update 1 '));
  const drain = calls.findIndex((c) => c.startsWith('local:///x resource drain --update 2-3 '));
  const list = calls.findIndex((c) => c.startsWith('local:///x jobs'));
  assert.ok(undrain >= 0 && drain > undrain && list > drain, calls.join('\n'));
  const bad = spawnSync('sh', ['-c', FLUX_QUEUE_SCRIPT, 'flux-queue', 'local:///x', '1;reboot'], {
    env,
    encoding: 'utf8',
  });
  assert.equal(bad.status, 69);
  assert.equal(bad.stderr, 'flux-queue: not a rank idset: 1;reboot\n');
});

test('the snapshot script passes shellcheck -s sh', () => {
  const result = spawnSync('shellcheck', ['-s', 'sh', '-'], { input: FLUX_QUEUE_SCRIPT, encoding: 'utf8' });
  assert.equal(result.error, undefined, `shellcheck could not run: ${String(result.error)}`);
  assert.equal(result.stdout + result.stderr, '');
  assert.equal(result.status, 0);
});

test('the snapshot script, run with the fake flux, prints the snapshot document', () => {
  const env = { PATH: `${join(FIXTURES, 'bin')}:/usr/bin:/bin`, FAKE_FLUX_DIR: QUEUE };
  const out = execFileSync('sh', ['-c', FLUX_QUEUE_SCRIPT, 'flux-queue', 'local:///run/flux/local'], {
    env,
    encoding: 'utf8',
  });
  assert.equal(out, read('snapshot.out'));
  // A failing flux command: exit 69 and which command on stderr, whatever flux's own exit code.
  const failing = spawnSync('sh', ['-c', FLUX_QUEUE_SCRIPT, 'flux-queue'], {
    env: { ...env, FAKE_FLUX_EXIT: '4' },
    encoding: 'utf8',
  });
  assert.equal(failing.status, 69);
  // The script's code is the one the reader looks for (src/burst/flux-queue-exec.ts).
  assert.equal(failing.status, FLUX_UNAVAILABLE_EXIT_CODE);
  assert.match(failing.stderr, /flux-queue: flux jobs --json failed \(exit 4\)\n$/);
  const missing = spawnSync('sh', ['-c', FLUX_QUEUE_SCRIPT, 'flux-queue'], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  assert.equal(missing.status, 69);
  assert.equal(missing.stderr, 'flux-queue: flux: command not found\n');
});
