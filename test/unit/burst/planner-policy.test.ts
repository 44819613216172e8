import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultBurstPolicy, parseBurstPolicy, targetsByCost } from '../../../src/burst/policy.ts';

describe('burst policy', () => {
  it('tries targets by cost (unset = free), then in declared order', () => {
    const order = targetsByCost([
      { name: 'gke', costPerNodeHour: 2 },
      { name: 'eks', costPerNodeHour: 1 },
      { name: 'onprem' },
      { name: 'eks-b', costPerNodeHour: 1 },
      { name: 'zero', costPerNodeHour: 0 },
    ]).map((target) => target.name);
    assert.deepEqual(order, ['onprem', 'zero', 'eks', 'eks-b', 'gke']);
  });

  it('defaults every missing field', () => {
    assert.deepEqual(parseBurstPolicy({}, 'p.json'), { ok: true, value: defaultBurstPolicy });
    assert.deepEqual(defaultBurstPolicy, {
      maxBurstNodes: 10000,
      idleSeconds: 600,
      targets: [{ name: 'in-cluster' }],
    });
    assert.deepEqual(parseBurstPolicy({ idleSeconds: 30, targets: [] }, 'p.json'), {
      ok: true,
      value: { maxBurstNodes: 10000, idleSeconds: 30, targets: [] },
    });
  });

  it('keeps only the fields given on a target', () => {
    const result = parseBurstPolicy(
      {
        maxBurstNodes: 8,
        targets: [
          { name: 'gke', maxNodes: 4 },
          { name: 'eks', costPerNodeHour: 0.25 },
        ],
      },
      'p.json',
    );
    assert.deepEqual(result, {
      ok: true,
      value: {
        maxBurstNodes: 8,
        idleSeconds: 600,
        targets: [
          { name: 'gke', maxNodes: 4 },
          { name: 'eks', costPerNodeHour: 0.25 },
        ],
      },
    });
  });

  it('names the source and field of every problem', () => {
    assert.deepEqual(parseBurstPolicy([], 'p.json'), {
      ok: false,
      problems: ['p.json: the policy must be a JSON object'],
    });
    assert.deepEqual(
      parseBurstPolicy(
        {
          idleSeconds: -1,
          pollSeconds: 0,
          targets: [{ name: 'gke', zone: 'x', maxNodes: '4' }, { name: 'gke' }, 'eks'],
        },
        'p.json',
      ),
      {
        ok: false,
        problems: [
          'p.json.idleSeconds: must be an integer >= 0, got -1',
          'p.json.pollSeconds: must be an integer >= 1, got 0',
          'p.json.targets[0].zone: unknown field; known fields are name, costPerNodeHour, maxNodes',
          'p.json.targets[0].maxNodes: must be an integer >= 0, got "4"',
          'p.json.targets[1].name: target gke is listed twice',
          'p.json.targets[2]: must be an object {name, costPerNodeHour?, maxNodes?}',
        ],
      },
    );
    assert.deepEqual(parseBurstPolicy({ targets: {} }, 'p.json'), {
      ok: false,
      problems: ['p.json.targets: must be a list of {name, costPerNodeHour?, maxNodes?}'],
    });
  });
});
