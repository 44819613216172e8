// The quickstart's own command line (workbench/src/quickstart/main.ts, `npm start`): its flags and how
// it ends on bad ones, without a cluster (--help and a bad flag never reach one).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildQuickstartProgram } from '../../../workbench/src/quickstart/main.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const MAIN = join(ROOT, 'workbench/src/quickstart/main.ts');

function quickstart(...args: string[]) {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the quickstart command line', () => {
  it("is what the root's npm start runs", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    assert.equal(pkg.scripts.start, 'node workbench/src/quickstart/main.ts');
  });

  it('takes a manifest (hello-world by default), a kubeconfig and a timeout', () => {
    const options = buildQuickstartProgram().options.map((option) => option.long);
    assert.deepEqual(options, ['--file', '--kubeconfig', '--timeout']);
    assert.equal(buildQuickstartProgram().getOptionValue('file'), 'examples/hello-world.yaml');
    const help = quickstart('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /-f, --file <file>/);
  });

  it('exits 2 on an unknown flag, as the operator CLI does, before any cluster is touched', () => {
    const result = quickstart('--frobnicate');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown option '--frobnicate'/);
  });
});
