import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { isAtLeast, MINIMUM_NODE_VERSION, nodeVersionProblem } from '../../../src/cli/node-version.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const CLI = join(ROOT, 'src/cli');
/** The machine's own Node: older than this project needs on the development machines (Node 20). */
const SYSTEM_NODE = '/usr/bin/node';

function tooOld(version: string): string {
  return `error: flux-operator needs Node.js >= 22.19.0, this is ${version}; in a clone of the project, \`bash hack/node.sh <command>\` installs one and runs the command with it\n`;
}

/**
 * The entry as `npm run build` emits it (the same per-file transform: types stripped, `.ts`
 * imports rewritten to `.js`), with node-version.js beside it and nothing else: the commands
 * (program.js) are missing, so the entry fails loudly if it loads them before the check.
 */
function builtEntry(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flux-operator-entry-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const name of ['main', 'node-version']) {
    const { outputText } = ts.transpileModule(readFileSync(join(CLI, `${name}.ts`), 'utf8'), {
      fileName: `${name}.ts`,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        rewriteRelativeImportExtensions: true,
        verbatimModuleSyntax: true,
      },
    });
    writeFileSync(join(dir, `${name}.js`), outputText);
  }
  return join(dir, 'main.js');
}

describe('the Node version check', () => {
  it('accepts the minimum and anything newer, refuses anything older', () => {
    for (const version of ['22.19.0', '22.20.1', 'v22.19.0', '23.0.0', '24.21.0', '100.0.0']) {
      assert.equal(nodeVersionProblem(version), undefined, version);
    }
    for (const version of ['20.20.2', '22.18.9', '22.9.0', '21.99.99', '18.0.0', 'v20.0.0', 'garbage']) {
      assert.equal(`error: ${nodeVersionProblem(version)}\n`, tooOld(version), version);
    }
    assert.equal(isAtLeast('22.19', '22.19.0'), true);
    assert.equal(isAtLeast('22.19.0', '22.19.1'), false);
  });

  it("is the minimum of package.json's engines and hack/node.sh, which .node-version meets", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    assert.equal(pkg.engines.node, `>=${MINIMUM_NODE_VERSION}`);
    assert.match(
      readFileSync(join(ROOT, 'hack/node.sh'), 'utf8'),
      new RegExp(`^minimum=${MINIMUM_NODE_VERSION}$`, 'm'),
    );
    assert.ok(isAtLeast(readFileSync(join(ROOT, '.node-version'), 'utf8').trim(), MINIMUM_NODE_VERSION));
  });

  it('stops the CLI before any command loads, with one line and exit code 1', () => {
    // This Node, told it is 20.0.0 before the entry runs: the source entry, `burst status` as typed.
    const fake = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.0.0"})';
    const result = spawnSync(process.execPath, ['--import', fake, join(CLI, 'main.ts'), 'burst', 'status'], {
      encoding: 'utf8',
    });
    assert.equal(result.stderr, tooOld('20.0.0'));
    assert.equal(result.stdout, '');
    assert.equal(result.status, 1);
  });

  it('stops the built entry on an older Node, and says what it needs', () => {
    // The machine's own Node where it is older (Node 20 on the development machines); elsewhere this
    // Node told it is 20.0.0, as above: the built entry is checked either way.
    const systemVersion = existsSync(SYSTEM_NODE)
      ? spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '')
      : '';
    const systemIsOld = systemVersion !== '' && !isAtLeast(systemVersion, MINIMUM_NODE_VERSION);
    const entry = builtEntry();
    const fake = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.0.0"})';
    const result = systemIsOld
      ? spawnSync(SYSTEM_NODE, [entry, 'burst', 'status'], { encoding: 'utf8' })
      : spawnSync(process.execPath, ['--import', fake, entry, 'burst', 'status'], { encoding: 'utf8' });
    assert.equal(result.stderr, tooOld(systemIsOld ? systemVersion : '20.0.0'));
    assert.equal(result.stdout, '');
    assert.equal(result.status, 1);
    // The same file on this Node passes the check and goes on to load the commands (absent here).
    const current = spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8' });
    assert.match(current.stderr, /Cannot find module '.*program\.js'/);
  });
});
