import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { validateMiniClusterV1alpha1 } from '../../../src/api/index.ts';
import { parseCurveCertificate } from '../../../src/flux/index.ts';
import { QUICKSTART_MOVED } from '../../../src/cli/program.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const MAIN = join(ROOT, 'src/cli/main.ts');
const CURVE = join(ROOT, 'test/fixtures/keys/curve.cert');
const MUNGE = join(ROOT, 'test/fixtures/keys/munge.key');

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function kinds(yamlText: string): string[] {
  return parseAllDocuments(yamlText).map((document) => {
    const object = document.toJS() as { kind: string; metadata: { name: string } };
    return `${object.kind}/${object.metadata.name}`;
  });
}

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'flux-operator-cli-')), name);
  writeFileSync(path, content);
  return path;
}

const VALID = `apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata:
  name: one
spec:
  size: 2
  containers:
    - image: ghcr.io/flux-framework/flux-restful-api:latest
      command: hostname
`;

describe('flux-operator render', () => {
  it('prints every object of the example as multi-document YAML', () => {
    const { code, stdout, stderr } = cli('render', '-f', 'examples/hello-world.yaml');
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.deepEqual(kinds(stdout), [
      'ConfigMap/hello-world-flux-config',
      'Secret/hello-world-curve-cert',
      'Secret/hello-world-munge-key',
      'Service/hello-world',
      'Job/hello-world',
    ]);
  });

  it('renders every MiniCluster of every file, several documents per file', () => {
    const two = tempFile('two.yaml', `${VALID}---\n${VALID.replace('name: one', 'name: two')}---\n`);
    const { code, stdout } = cli('render', '-f', two, '-f', 'examples/interactive.yaml');
    assert.equal(code, 0);
    assert.deepEqual(
      kinds(stdout).filter((name) => name.startsWith('Job/')),
      ['Job/one', 'Job/two', 'Job/interactive'],
    );
  });

  it('reuses given keys, giving byte-identical output run after run', () => {
    const args = ['render', '-f', 'examples/elastic.yaml', '--curve-cert', CURVE, '--munge-key', MUNGE];
    const first = cli(...args);
    const second = cli(...args);
    assert.equal(first.code, 0);
    assert.equal(first.stdout, second.stdout);
    const secrets = parseAllDocuments(first.stdout)
      .map((document) => document.toJS() as { kind: string; data?: Record<string, string> })
      .filter((object) => object.kind === 'Secret');
    assert.equal(
      Buffer.from(secrets[0]?.data?.['curve.cert'] ?? '', 'base64').toString(),
      readFileSync(CURVE, 'utf8'),
    );
    assert.deepEqual(Buffer.from(secrets[1]?.data?.['munge.key'] ?? '', 'base64'), readFileSync(MUNGE));
  });

  it('generates different keys for each run without --curve-cert', () => {
    const first = cli('render', '-f', 'examples/interactive.yaml');
    const second = cli('render', '-f', 'examples/interactive.yaml');
    assert.notEqual(first.stdout, second.stdout);
  });

  it('exits 2 with the field path of every problem, nothing on stdout and no stack trace', () => {
    const bad = tempFile(
      'bad.yaml',
      VALID.replace('size: 2', 'size: 4\n  maxSize: 2').replace(
        'command: hostname',
        'command: hostname\n      colour: blue',
      ),
    );
    const { code, stdout, stderr } = cli('render', '-f', bad);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /bad\.yaml: spec\.containers\[0\]\.colour: is not a field/);
    assert.doesNotMatch(stderr, /^\s+at /m);
  });

  it('reports a semantic problem with the field and the fix', () => {
    const bad = tempFile('semantic.yaml', VALID.replace('size: 2', 'size: 4\n  maxSize: 2'));
    const { code, stdout, stderr } = cli('render', '-f', bad);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /semantic\.yaml: spec\.maxSize: must be >= spec\.size \(4\)/);
  });

  it('names the document of a multi-document file that is wrong', () => {
    const file = tempFile('multi.yaml', `${VALID}---\n${VALID.replace('name: one', 'name: Two_Bad')}`);
    const { code, stdout, stderr } = cli('render', '-f', file);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /multi\.yaml \(document 2\): metadata\.name/);
    assert.doesNotMatch(stderr, /document 1/);
  });

  it('exits 2 on invalid YAML with the line, and on a missing file', () => {
    const broken = tempFile('broken.yaml', 'spec:\n  size: [1, 2\n');
    const yamlError = cli('render', '-f', broken);
    assert.equal(yamlError.code, 2);
    assert.equal(yamlError.stdout, '');
    assert.match(yamlError.stderr, /broken\.yaml:\d+:\d+: invalid YAML/);

    const missing = cli('render', '-f', '/nonexistent/minicluster.yaml');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /minicluster\.yaml: cannot read the file \(ENOENT\)/);
  });

  it('without -f says how to use it, even with an empty standard input', () => {
    const result = spawnSync(process.execPath, [MAIN, 'render'], { cwd: ROOT, encoding: 'utf8', input: '' });
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    const lines = result.stderr.split('\n');
    assert.equal(lines[0], "error: required option '-f, --file <file>' not specified");
    assert.ok(lines.includes('Usage: flux-operator render [options]'), result.stderr);
    assert.ok(lines.includes('Example: flux-operator render -f examples/hello-world.yaml'), result.stderr);
  });

  it('rejects a key file that is not a certificate or munge key', () => {
    const notCert = tempFile('curve.cert', 'hello\n');
    const shortKey = tempFile('munge.key', 'short');
    const { code, stdout, stderr } = cli(
      'render',
      '-f',
      'examples/hello-world.yaml',
      '--curve-cert',
      notCert,
      '--munge-key',
      shortKey,
    );
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /--curve-cert .*curve\.cert: /);
    assert.match(stderr, /--munge-key .*munge\.key: a munge key must hold 32 to 16384 bytes, this one has 5/);
  });
});

describe('flux-operator keygen and crd', () => {
  it('keygen prints a valid certificate for the named MiniCluster', () => {
    const { code, stdout } = cli('keygen', '--name', 'demo');
    assert.equal(code, 0);
    const parsed = parseCurveCertificate(stdout);
    assert.equal(parsed.name, 'demo');
    assert.equal(parsed.metadata['keygen.hostname'], 'demo-0');
  });

  it("keygen checks --name as a MiniCluster name, with the validator's message", () => {
    const bad = cli('keygen', '--name', 'Bad/Name');
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    assert.equal(
      bad.stderr,
      'error: --name: must be a DNS label (lowercase letters, digits and "-", starting with a letter, ending with a letter or digit), since pod host names and the Service derive from it; got "Bad/Name"\n',
    );
    const validated = validateMiniClusterV1alpha1(parseYaml(VALID.replace('name: one', 'name: Bad/Name')));
    assert.ok(!validated.ok);
    const nameProblem = validated.problems.find((problem) => problem.path === 'metadata.name');
    assert.equal(bad.stderr, `error: --name: ${nameProblem?.message}\n`);

    const long = cli('keygen', '--name', 'a'.repeat(62));
    assert.equal(long.code, 2);
    assert.equal(
      long.stderr,
      `error: --name: must have at most 61 characters (got 62) so that host names up to ${'a'.repeat(62)}-0 stay within 63; shorten the name\n`,
    );
    assert.equal(cli('keygen', '--name', 'a'.repeat(61)).code, 0);
  });

  it('crd prints the CRD that deploy/crd.yaml holds', () => {
    const { code, stdout } = cli('crd');
    assert.equal(code, 0);
    assert.deepEqual(parseYaml(stdout), parseYaml(readFileSync(join(ROOT, 'deploy/crd.yaml'), 'utf8')));
  });

  it('an unknown command exits 2', () => {
    assert.equal(cli('frobnicate').code, 2);
  });

  it("quickstart, which is the workbench's, says where it went, exits 1 and is not in the help", () => {
    const moved = cli('quickstart', '-f', 'examples/elastic.yaml');
    assert.equal(moved.code, 1);
    assert.equal(moved.stdout, '');
    assert.equal(moved.stderr, `error: ${QUICKSTART_MOVED}\n`);
    assert.match(moved.stderr, /`npm start`/);
    assert.doesNotMatch(cli('--help').stdout, /quickstart/);
  });
});

describe('flux-operator burst plan', () => {
  it('prints the plan for the example, and exits 2 on a bad queue file', () => {
    const plan = cli(
      'burst',
      'plan',
      '-f',
      'examples/burst-local.yaml',
      '--queue',
      'test/fixtures/burst/queue.json',
    );
    assert.equal(plan.code, 0);
    assert.match(plan.stdout, /^ {2}create {2}burst-0 {2}in-cluster {2}4 {5}BurstNeeded$/m);
    const bad = cli(
      'burst',
      'plan',
      '-f',
      'examples/burst-local.yaml',
      '--queue',
      tempFile('queue.json', '{"jobs": 3}'),
    );
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /queue\.json/);
  });
});
