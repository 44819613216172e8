import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityNanos, quantityUnits } from '../../../src/api/shared/quantity.ts';

describe('quantityNanos', () => {
  // Values as the API server's quantity() compares them (checked against kube-apiserver 1.35).
  const cases: [string | number, bigint | undefined][] = [
    [4, 4_000_000_000n],
    ['4', 4_000_000_000n],
    ['500m', 500_000_000n],
    ['.5', 500_000_000n],
    ['5.', 5_000_000_000n],
    ['+5', 5_000_000_000n],
    ['2Ki', 2048_000_000_000n],
    ['1E', 10n ** 27n],
    ['1e3', 1000_000_000_000n],
    ['1.5e3', 1500_000_000_000n],
    ['5.e3', 5000_000_000_000n],
    ['0.5m', 500_000n],
    ['1n', 1n],
    // Below a nano unit, Kubernetes rounds up.
    ['0.0000000001', 1n],
    ['1e-99', 1n],
    ['1.0000000001', 1_000_000_001n],
    ['0', 0n],
    ['00012', 12_000_000_000n],
    ['-1', undefined],
    ['1e', undefined],
    ['1e100', undefined],
    ['1.5.5', undefined],
    ['', undefined],
    [-1, undefined],
    [1.5, undefined],
  ];
  for (const [value, nanos] of cases) {
    it(`reads ${JSON.stringify(value)} as ${nanos ?? 'no quantity'}`, () => {
      assert.equal(quantityNanos(value), nanos);
    });
  }

  it('tells whole units', () => {
    assert.equal(quantityUnits(quantityNanos('2Mi') ?? 0n), 2097152n);
    assert.equal(quantityUnits(quantityNanos('1500m') ?? 0n), undefined);
  });
});
