// `flux-operator convert`: v1alpha1 manifests as v1alpha2 for users moving to the current API. The
// converted MiniClusters validate as v1alpha2 and render, back in v1alpha1, the same objects as the
// manifests they came from; problems name the document and field.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { toV1alpha1, validateMiniCluster } from '../../../src/api/index.ts';
import { convertFiles } from '../../../src/cli/convert-command.ts';
import { InputError } from '../../../src/cli/input-error.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { KEYS } from '../render/fixtures.ts';
import { exampleMiniClusterManifests } from '../../harness/v1alpha1-examples.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

function documents(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((document) => document.toJS() as Record<string, unknown>);
}

function miniClustersOf(text: string): Record<string, unknown>[] {
  return documents(text).filter((document) => document?.kind === 'MiniCluster');
}

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'flux-operator-convert-')), name);
  writeFileSync(path, content);
  return path;
}

/** The objects a v1alpha1 MiniCluster renders to (fixed keys), as the operator renders it today. */
function rendered(miniCluster: unknown): unknown[] {
  const result = validateMiniClusterV1alpha1(miniCluster);
  assert.ok(result.ok, JSON.stringify(result));
  return renderMiniCluster(defaultedToV1alpha2(result.value), KEYS);
}

async function problemsOf(files: string[]): Promise<readonly string[]> {
  const error = await convertFiles(files).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof InputError, 'an InputError');
  return error.problems;
}

const V1ALPHA1 = `apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata:
  name: one
spec:
  size: 2
  containers:
    - image: localhost/flux:0.88.0
      command: hostname
`;

describe('flux-operator convert', () => {
  it("converts the Go operator's v1alpha1 examples to v1alpha2 MiniClusters that render the same objects", async () => {
    // Every manifest of the archive that is valid YAML with valid v1alpha1 MiniClusters (see docs/v1alpha1.md for the others).
    const manifests = (await exampleMiniClusterManifests()).filter(
      ({ text }) =>
        parseAllDocuments(text, { uniqueKeys: true }).every((document) => document.errors.length === 0) &&
        miniClustersOf(text).every((document) => validateMiniClusterV1alpha1(document).ok),
    );
    assert.ok(manifests.length >= 60, `${manifests.length} valid v1alpha1 example manifests`);
    const files = manifests.map(({ path, text }) => tempFile(path.replaceAll('/', '_'), text));
    const converted = documents(await convertFiles(files)).filter(
      (document) => document.kind === 'MiniCluster',
    );
    const originals = manifests.flatMap(({ text }) => miniClustersOf(text));
    assert.equal(converted.length, originals.length);
    converted.forEach((miniCluster, index) => {
      const name = `${manifests.length} manifests, MiniCluster ${index}: ${String((miniCluster.metadata as { name: string }).name)}`;
      assert.equal(miniCluster.apiVersion, 'flux-framework.org/v1alpha2', name);
      const result = validateMiniCluster(miniCluster);
      assert.ok(result.ok, `${name}: ${JSON.stringify(result)}`);
      assert.equal((miniCluster.metadata as { annotations?: unknown }).annotations, undefined, name);
      assert.deepEqual(rendered(toV1alpha1(miniCluster)), rendered(originals[index]), name);
    });
  });

  it('says in comments what it wrote out for v1alpha1', async () => {
    const restful = tempFile('restful.yaml', V1ALPHA1.replace('      command: hostname\n', ''));
    const text = await convertFiles([restful]);
    assert.match(text, /^# Converted from flux-framework.org\/v1alpha1 \(.*restful.yaml\)/m);
    assert.match(text, /^# flux.container.disable: true keeps Flux from the image/m);
    assert.match(text, /^# logging.strict: true is v1alpha1's default, written out/m);
    assert.match(text, /^# fluxRestful: \{\} says what v1alpha1 implied without a command/m);
    assert.match(text, /^# network.disableAffinity: true keeps the brokers without pod affinity/m);
  });

  it('passes other documents and v1alpha2 MiniClusters through as they are, in their order', async () => {
    const v1alpha2 = V1ALPHA1.replace('v1alpha1', 'v1alpha2').replace('name: one', 'name: two');
    const config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: data\ndata:\n  a: b\n';
    const file = tempFile('mixed.yaml', `${config}---\n${V1ALPHA1}---\n${v1alpha2}`);
    const [first, second, third] = documents(await convertFiles([file]));
    assert.deepEqual(first, documents(config)[0]);
    assert.equal(second?.apiVersion, 'flux-framework.org/v1alpha2');
    assert.deepEqual(third, documents(v1alpha2)[0]);
  });

  it('names the document and the field of every problem, and converts nothing then', async () => {
    const bad = V1ALPHA1.replace('command: hostname', 'cmd: hostname');
    const future = V1ALPHA1.replace('v1alpha1', 'v1beta1');
    const file = tempFile('bad.yaml', `${V1ALPHA1}---\n${bad}---\n${future}`);
    assert.deepEqual(await problemsOf([file]), [
      `${file} (document 2): spec.containers[0].cmd: is not a field of this object; check the spelling (field names are case-sensitive) or remove it`,
      `${file} (document 3): apiVersion: must be flux-framework.org/v1alpha1 (or flux-framework.org/v1alpha2, printed as it is); got "flux-framework.org/v1beta1"`,
    ]);
    const empty = tempFile('empty.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
    assert.deepEqual(await problemsOf([empty]), [`${empty}: no MiniCluster found`]);
  });

  it('prints YAML on stdout and exits 0; with problems, prints nothing there and exits 2', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });
    const good = run('convert', '-f', tempFile('one.yaml', V1ALPHA1));
    assert.equal(good.status, 0);
    assert.equal(good.stderr, '');
    assert.equal(documents(good.stdout)[0]?.apiVersion, 'flux-framework.org/v1alpha2');
    const bad = run('convert', '-f', 'examples/no-such-file.yaml');
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /^error: examples\/no-such-file.yaml: cannot read the file \(ENOENT\)$/m);
  });
});
