import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LEAD_PHASES,
  leadPhases,
  medianPhases,
  phaseWords,
  withoutTimestamps,
} from '../../bench/mpi-phases.ts';

const APPLIED = Date.parse('2026-11-30T02:07:37.000Z');
/** A lead pod's log as `kubectl logs --timestamps` gives it (the runtime's stamp, a space, the line). */
const STAMPED = [
  '2026-11-30T02:07:38.853497627Z flux-operator: the Flux view is in place (waited 0 ms or more for its copy)',
  '2026-11-30T02:07:38.959367435Z flux-operator: starting the lead broker',
  '2026-11-30T02:07:39.341300419Z Nov 30 02:07:39.341196 UTC 2026 broker.info[0]: rc1-success: init->quorum 0.346063s',
  '2026-11-30T02:07:39.727983395Z Nov 30 02:07:39.722979 UTC 2026 broker.info[0]: quorum-full: quorum->run 0.38177s',
  '2026-11-30T02:07:40.910923475Z Loop time of 0.529811 on 2 procs for 250 steps with 4000 atoms',
  '2026-11-30T02:07:40.946199197Z Nov 30 02:07:40.946118 UTC 2026 broker.info[0]: rc2-success: run->cleanup 1.22313s',
  '2026-11-30T02:07:41.512156224Z ',
  '2026-11-30T02:07:41.512662417Z flux-operator: the lead broker exited with status 0',
  '2026-11-30T02:07:41.600000000Z flux-operator: the lead broker exited with status 0',
].join('\n');

describe("where a MiniCluster's apply-to-done goes, from its lead pod's log", () => {
  it('puts each step at its first line, in seconds after the apply, to the millisecond', () => {
    assert.deepEqual(leadPhases(STAMPED, APPLIED), {
      entrypoint: 1.853,
      broker: 1.959,
      rc1: 2.341,
      quorum: 2.728,
      job_end: 3.946,
      lead_exit: 4.513,
    });
  });

  it('leaves out the steps a log lacks and lines without a stamp', () => {
    const unstamped = STAMPED.split('\n')
      .map((line) => (line.includes('quorum-full') ? line.slice(line.indexOf(' ') + 1) : line))
      .filter((line) => !line.includes('rc2-success'))
      .join('\n');
    const phases = leadPhases(unstamped, APPLIED);
    assert.equal(phases.quorum, undefined);
    assert.equal(phases.job_end, undefined);
    assert.equal(phases.rc1, 2.341);
    assert.deepEqual(leadPhases('', APPLIED), {});
  });

  it('gives back the log as the program wrote it, for the figures read from it', () => {
    const plain = withoutTimestamps(STAMPED).split('\n');
    assert.equal(plain[4], 'Loop time of 0.529811 on 2 procs for 250 steps with 4000 atoms');
    assert.equal(plain[6], '');
    assert.ok(plain.every((line) => !/^\d{4}-/.test(line)));
  });

  it('takes each step`s median over the runs that logged it, and says one run`s steps in order', () => {
    assert.deepEqual(medianPhases([{ rc1: 3 }, { rc1: 1, quorum: 4 }, { rc1: 2 }]), { rc1: 2, quorum: 4 });
    assert.deepEqual(medianPhases([]), {});
    const words = phaseWords(leadPhases(STAMPED, APPLIED));
    assert.equal(
      words,
      "its lead pod's steps (s): entrypoint 1.85, broker 1.96, rc1 2.34, quorum 2.73, job_end 3.95, lead_exit 4.51",
    );
    assert.equal(LEAD_PHASES.filter((phase) => words.includes(`${phase} `)).length, LEAD_PHASES.length);
    assert.equal(phaseWords({}), 'no step of the lead pod in its log');
  });
});
