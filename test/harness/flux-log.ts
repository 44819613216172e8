// What a lead broker's log says about how its instance ran, as the e2e scenarios check it.
import assert from 'node:assert/strict';

/**
 * The instance ended through the operator's one-step cleanup (src/flux/scripts/one-step-cleanup.py),
 * not flux-core's four commands: the broker logs each cleanup command it runs.
 */
export function assertOneStepCleanup(log: string): void {
  const cleanups = log.split('\n').filter((line) => /broker\.info\[0\]: cleanup\.\d+: /.test(line));
  assert.equal(cleanups.length, 1, `one cleanup command ran:\n${log}`);
  assert.match(cleanups[0] ?? '', /cleanup\.0: flux python \S*\/one-step-cleanup\.py Exited \(rc=0\)/, log);
}
