import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildPace,
  duration,
  firstRunPlan,
  PACE_AFTER_SECONDS,
  PACE_BOUNDS,
  type BuildStage,
} from '../../../workbench/src/localcluster/first-run.ts';
import { REAL_NODE_IMAGE_GROUPS, withNeeds } from '../../../workbench/src/localcluster/real-node/images.ts';

const STAGES: BuildStage[] = [
  { key: 'control-plane', what: 'the control plane', seconds: 1200 },
  { key: 'real-node', what: 'the real node', seconds: 420 },
  { key: 'view', what: 'the view', seconds: 740 },
  { key: 'plain', what: 'the plain images', seconds: 15 },
];

/** A plan of `stages` on a clock the test moves (`clock.ms`), and the lines it said. */
function clockedPlan(stages: readonly BuildStage[]) {
  const said: string[] = [];
  const clock = { ms: 0 };
  const plan = firstRunPlan(
    stages,
    (line) => said.push(line),
    () => clock.ms,
  );
  return { plan, said, clock };
}

describe('a run`s builds, said as one plan', () => {
  it('says every build and the total once, then each as it starts with what is left after it', () => {
    // Each build takes just its estimate: the pace is 1, and every line says the estimates.
    const { plan, said, clock } = clockedPlan(STAGES);
    const total = STAGES.reduce((sum, stage) => sum + stage.seconds, 0);
    assert.equal(
      plan.announcement,
      `building what the cache lacks (once: later runs reuse it), 4 builds, ${duration(total)} in all on 2 cores: ` +
        'the control plane (about 20 min), the real node (about 7 min), the view (about 12 min), the plain images (under a minute)',
    );
    for (const stage of STAGES) {
      plan.starting(stage.key);
      clock.ms += stage.seconds * 1000;
    }
    const atPace = " (at this machine's pace so far: the builds before took 1.0x their estimates)";
    assert.deepEqual(said, [
      '[build 1/4] the control plane: about 20 min; then 3 more, about 20 min: the real node, the view, the plain images',
      `[build 2/4] the real node: about 7 min; then 2 more, about 13 min: the view, the plain images${atPace}`,
      `[build 3/4] the view: about 12 min; then 1 more, under a minute: the plain images${atPace}`,
      `[build 4/4] the plain images: under a minute; the last build${atPace}`,
    ]);
  });

  it('says what is left at the pace the builds so far took on this machine', () => {
    const { plan, said, clock } = clockedPlan(STAGES);
    plan.starting('control-plane');
    // The control plane took 480 s of its 1200: 0.4x.
    clock.ms = 480_000;
    plan.starting('real-node');
    const pace = 480 / 1200;
    const left = (STAGES[2]?.seconds ?? 0) + (STAGES[3]?.seconds ?? 0);
    assert.equal(
      said[1],
      `[build 2/4] the real node: ${duration(420 * pace)}; then 2 more, ${duration(left * pace)}: the view, the plain images` +
        " (at this machine's pace so far: the builds before took 0.4x their estimates)",
    );
    assert.notEqual(duration(420 * pace), duration(420), 'the pace changes what is said');
  });

  it('tells a pace only once the builds behind weigh enough, and keeps it within bounds', () => {
    assert.equal(buildPace(100, PACE_AFTER_SECONDS - 1), undefined);
    assert.equal(buildPace(0, 1200), undefined);
    assert.equal(buildPace(600, 1200), 0.5);
    assert.equal(buildPace(1, 1200), PACE_BOUNDS[0]);
    assert.equal(buildPace(1_000_000, 1200), PACE_BOUNDS[1]);
    // Behind a 15 s build only, nothing is said of the pace.
    const { plan, said, clock } = clockedPlan(STAGES.slice(3).concat(STAGES.slice(1, 2)));
    plan.starting('plain');
    clock.ms = 60_000;
    plan.starting('real-node');
    assert.doesNotMatch(said[1] ?? '', /pace/);
  });

  it('says nothing for a build not in the plan, nor twice for one; nothing at all when the cache holds everything', () => {
    const said: string[] = [];
    const plan = firstRunPlan(STAGES.slice(2), (line) => said.push(line));
    plan.starting('control-plane');
    plan.starting('view');
    plan.starting('view');
    assert.equal(said.length, 1);
    assert.match(said[0] ?? '', /^\[build 1\/2\] the view: /);
    const none = firstRunPlan([], (line) => said.push(line));
    none.starting('view');
    assert.equal(none.announcement, undefined);
    assert.equal(said.length, 1);
  });

  it('builds a group with what it is made of, in the order the node loads them', () => {
    assert.deepEqual(withNeeds(['spackView']), ['view', 'plain', 'spackView']);
    assert.deepEqual(withNeeds(['fluxLammps', 'view']), ['flux', 'view', 'fluxLammps']);
    assert.deepEqual(withNeeds(['plain', 'view']), ['view', 'plain']);
    assert.deepEqual(withNeeds(REAL_NODE_IMAGE_GROUPS), [...REAL_NODE_IMAGE_GROUPS]);
  });
});
