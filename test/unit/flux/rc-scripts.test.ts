import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { forgetCertificateScript } from '../../../src/flux/rc-scripts.ts';

const folder = mkdtempSync(join(tmpdir(), 'flux-rc-scripts-'));
after(() => rmSync(folder, { recursive: true, force: true }));

function runForget(env: Record<string, string>): number | null {
  const script = join(folder, 'forget-certificate.sh');
  writeFileSync(script, forgetCertificateScript(), { mode: 0o555 });
  return spawnSync(script, [], { env: { PATH: '/usr/bin:/bin', ...env }, timeout: 10_000 }).status;
}

describe('the rc1 script that forgets the certificate', () => {
  it('removes the copy it is told of', () => {
    const copy = join(folder, 'curve.cert');
    writeFileSync(copy, 'CERTIFICATE\n', { mode: 0o400 });
    assert.equal(runForget({ FLUX_OPERATOR_CURVE_CERT: copy }), 0);
    assert.equal(existsSync(copy), false);
  });

  it('never fails (a failed rc1 would stop the broker): no copy, or none named', () => {
    assert.equal(runForget({ FLUX_OPERATOR_CURVE_CERT: join(folder, 'absent') }), 0);
    assert.equal(runForget({}), 0);
  });
});
