import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duration, firstRunPlan, type BuildStage } from '../../../workbench/src/localcluster/first-run.ts';
import { REAL_NODE_IMAGE_GROUPS, withNeeds } from '../../../workbench/src/localcluster/real-node/images.ts';

const STAGES: BuildStage[] = [
  { key: 'control-plane', what: 'the control plane', seconds: 1200 },
  { key: 'real-node', what: 'the real node', seconds: 420 },
  { key: 'view', what: 'the view', seconds: 740 },
  { key: 'plain', what: 'the plain images', seconds: 15 },
];

describe('a run`s builds, said as one plan', () => {
  it('says every build and the total once, then each as it starts with what is left after it', () => {
    const said: string[] = [];
    const plan = firstRunPlan(STAGES, (line) => said.push(line));
    const total = STAGES.reduce((sum, stage) => sum + stage.seconds, 0);
    assert.equal(
      plan.announcement,
      `building what the cache lacks (once: later runs reuse it), 4 builds, ${duration(total)} in all on 2 cores: ` +
        'the control plane (about 20 min), the real node (about 7 min), the view (about 12 min), the plain images (under a minute)',
    );
    for (const stage of STAGES) plan.starting(stage.key);
    assert.deepEqual(said, [
      '[build 1/4] the control plane: about 20 min; then 3 more, about 20 min: the real node, the view, the plain images',
      '[build 2/4] the real node: about 7 min; then 2 more, about 13 min: the view, the plain images',
      '[build 3/4] the view: about 12 min; then 1 more, under a minute: the plain images',
      '[build 4/4] the plain images: under a minute; the last build',
    ]);
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
