// Which of the Go suite's cases have a test.out.correct is a fact of the archive: the harness's list
// matches it, a listed case whose file cannot be read fails, and a case without one says so.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  GO_CASES_WITH_EXPECTED_LOG,
  expectedGoLog,
  goCasesWithExpectedLog,
  readGoTestFile,
} from '../../harness/go-v1alpha2-cases.ts';
import { goV1alpha2TestManifests } from '../../harness/go-v1alpha2-examples.ts';

const run = promisify(execFile);
const TAR_TIMEOUT_MS = 60_000;
/** Where the archive keeps the cases (the harness reads them there). */
const TESTS_DIR = 'flux-operator-0d75cef8/examples/tests';

/** Whether the real archive yields the case's test.out.correct (extracting it, not listing). */
async function extracts(name: string): Promise<boolean> {
  return readGoTestFile(name, 'test.out.correct').then(
    () => true,
    () => false,
  );
}

describe("the Go suite's expected logs (test.out.correct)", () => {
  let cases: string[] = [];
  let folder = '';

  before(async () => {
    cases = (await goV1alpha2TestManifests())
      .map((manifest) => /^tests\/([^/]+)\/minicluster\.yaml$/.exec(manifest.path)?.[1])
      .filter((name): name is string => name !== undefined)
      .sort();
    folder = await mkdtemp(path.join(tmpdir(), 'go-expected-logs-'));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  /** An archive of the harness's layout holding `files` (paths under the cases' folder) only. */
  async function archiveOf(name: string, files: Record<string, string>): Promise<string> {
    const root = path.join(folder, name);
    for (const [file, text] of Object.entries(files)) {
      const target = path.join(root, TESTS_DIR, file);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
    }
    const archive = path.join(folder, `${name}.tar.gz`);
    await run('tar', ['-czf', archive, '-C', root, TESTS_DIR.split('/')[0] ?? ''], {
      timeout: TAR_TIMEOUT_MS,
    });
    return archive;
  }

  it('lists the cases that have one as the archive has them, and the harness names the same', async () => {
    const listed = await goCasesWithExpectedLog();
    const withFile: string[] = [];
    for (const name of cases) if (await extracts(name)) withFile.push(name);
    assert.ok(cases.length > listed.length, `${cases.length} cases in the archive`);
    assert.deepEqual(listed, withFile);
    assert.deepEqual(listed, [...GO_CASES_WITH_EXPECTED_LOG].sort());
  });

  it("reads each listed case's log with the pods' CRLF line ends made LF", async () => {
    let converted = 0;
    for (const name of GO_CASES_WITH_EXPECTED_LOG) {
      const expected = await expectedGoLog(name);
      assert.equal(expected.kind, 'log', name);
      if (expected.kind !== 'log') continue;
      assert.equal(expected.member, `${TESTS_DIR}/${name}/test.out.correct`);
      assert.ok(expected.text.length > 0, name);
      assert.doesNotMatch(expected.text, /\r/, name);
      if ((await readGoTestFile(name, 'test.out.correct')).includes('\r\n')) converted += 1;
    }
    assert.ok(converted > 0, 'some logs of the archive end lines in CRLF');
  });

  it('says a case without one has none, naming it', async () => {
    const without = cases.filter((name) => !GO_CASES_WITH_EXPECTED_LOG.includes(name));
    assert.equal(without.length, cases.length - GO_CASES_WITH_EXPECTED_LOG.length);
    assert.ok(without.length > 0);
    for (const name of without) {
      const expected = await expectedGoLog(name);
      assert.equal(expected.kind, 'none', name);
      assert.match(
        expected.kind === 'none' ? expected.reason : '',
        new RegExp(`examples/tests/${name} has no`),
      );
    }
  });

  it('fails, naming the case and the file, when a listed case has lost its test.out.correct', async () => {
    const [name] = GO_CASES_WITH_EXPECTED_LOG;
    assert.ok(name !== undefined);
    const manifest = await readGoTestFile(name, 'minicluster.yaml');
    const archive = await archiveOf('lost', { [`${name}/minicluster.yaml`]: manifest });
    assert.deepEqual(await goCasesWithExpectedLog(archive), []);
    await assert.rejects(expectedGoLog(name, archive), (error: Error) => {
      assert.ok(error.message.startsWith(`examples/tests/${name} is expected to have `), error.message);
      assert.ok(error.message.includes(`${TESTS_DIR}/${name}/test.out.correct`), error.message);
      return true;
    });
  });

  it('fails when the archive has one for a case the harness does not list', async () => {
    const name = cases.find((each) => !GO_CASES_WITH_EXPECTED_LOG.includes(each));
    assert.ok(name !== undefined);
    const archive = await archiveOf('gained', {
      [`${name}/minicluster.yaml`]: await readGoTestFile(name, 'minicluster.yaml'),
      [`${name}/test.out.correct`]: 'hello world\r\n',
    });
    assert.deepEqual(await goCasesWithExpectedLog(archive), [name]);
    await assert.rejects(expectedGoLog(name, archive), {
      message: new RegExp(`^examples/tests/${name} has .* but is not in GO_CASES_WITH_EXPECTED_LOG`),
    });
  });
});
