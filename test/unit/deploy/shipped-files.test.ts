// The pods' scripts and the RESTful server are files the code reads at run time from beside the module
// that names them (src/flux/packaged-files.ts). These tests build the operator as the image does
// (`npm run build -- --outDir`, into a fresh folder) and check, from the code's own tables, that each
// file is in that output where the compiled code looks for it, in the package npm makes of it, and in
// what the Dockerfile builds and copies; and that the package and the image hold the operator alone,
// nothing of the workbench beside it (workbench/: the quickstart, the local cluster, the images).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { shippedFiles, staleOutputs } from '../../../hack/build.ts';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';
import type { PackagedFiles } from '../../../src/flux/packaged-files.ts';
import { DEPS_NPM_ARGS, OPERATOR_SOURCES, npmEnv } from '../../../workbench/src/images/index.ts';

const execFileAsync = promisify(execFile);

/** The modules holding a table of shipped files, and the table's export. */
const TABLES = [
  { module: 'src/flux/scripts/files.ts', table: 'FLUX_SCRIPTS' },
  { module: 'src/burst/scripts/files.ts', table: 'BURST_SCRIPTS' },
  { module: 'src/restful/server-files.ts', table: 'RESTFUL_SERVER_SOURCES' },
];

async function tableOf(moduleFile: string, name: string): Promise<PackagedFiles<string>> {
  const exported = ((await import(pathToFileURL(moduleFile).href)) as Record<string, unknown>)[name];
  assert.ok(exported !== undefined, `${moduleFile} exports ${name}`);
  return exported as PackagedFiles<string>;
}

interface TableFile {
  module: string;
  table: string;
  /** Its name in the table. */
  name: string;
  /** Where the source tree holds it: `src/flux/scripts/entrypoint.sh`. */
  file: string;
}

async function tableFiles(): Promise<TableFile[]> {
  const found: TableFile[] = [];
  for (const { module, table } of TABLES) {
    const files = await tableOf(path.join(REPOSITORY_ROOT, module), table);
    assert.ok(files.names.length > 0, `${module}: ${table} names no file`);
    for (const name of files.names) {
      const file = path.relative(REPOSITORY_ROOT, fileURLToPath(files.url(name)));
      found.push({ module, table, name, file });
    }
  }
  return found;
}

const read = (file: string) => readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  files: string[];
  bin: Record<string, string>;
  workspaces: string[];
};

/** The files under `dir` of the repository, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(REPOSITORY_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(file) : [file];
  });
}

/** The workbench's folders of sources (`images`, `localcluster`, `quickstart`, `tooling`). */
const WORKBENCH_FOLDERS = readdirSync(path.join(REPOSITORY_ROOT, 'workbench', 'src'));

/**
 * Output an earlier build may have left in dist/: modules of sources that moved to the workbench since.
 * The staging folder starts with them, as a developer's dist/ does, and the build must remove them.
 */
const STALE = ['dist/src/images/index.js', 'dist/src/localcluster/kueue/run-kueue.sh', 'dist/src/cli/quickstart-command.js'];

describe('the files the code reads at run time', () => {
  let staging = '';

  before(async () => {
    staging = mkdtempSync(path.join(tmpdir(), 'shipped-files-'));
    // package.json beside the output, as in the image and the package: it makes the .js modules ES.
    copyFileSync(path.join(REPOSITORY_ROOT, 'package.json'), path.join(staging, 'package.json'));
    for (const file of STALE) {
      mkdirSync(path.dirname(path.join(staging, file)), { recursive: true });
      writeFileSync(path.join(staging, file), '// stale\n');
    }
    await execFileAsync('npm', ['run', 'build', '--silent', '--', '--outDir', path.join(staging, 'dist')], {
      cwd: REPOSITORY_ROOT,
      env: npmEnv(process.env),
      timeout: 300_000,
      maxBuffer: 1 << 24,
    });
  });

  after(() => rmSync(staging, { recursive: true, force: true }));

  /** The paths of the package npm makes of the build output (made once). */
  let packing: Promise<string[]> | undefined;
  const packedPaths = (): Promise<string[]> =>
    (packing ??= execFileAsync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: staging,
      env: npmEnv(process.env),
      timeout: 120_000,
      maxBuffer: 1 << 24,
    }).then(({ stdout }) => {
      const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
      assert.ok(packed);
      return packed.files.map((entry) => entry.path);
    }));

  it('are the files the build ships, each named by a table', async () => {
    const named = (await tableFiles()).map(({ file }) => file).sort();
    assert.deepEqual(named, shippedFiles());
    assert.ok(named.includes('src/flux/scripts/entrypoint.sh') && named.includes('src/restful/restful_server.py'));
  });

  it('are in the build output beside their compiled table, which reads them', async () => {
    for (const { module, table, name, file } of await tableFiles()) {
      assert.equal(readFileSync(path.join(staging, 'dist', file), 'utf8'), read(file), file);
      const compiled = await tableOf(path.join(staging, 'dist', module.replace(/\.ts$/, '.js')), table);
      assert.equal(compiled.text(name), read(file), `${module} compiled reads ${name}`);
    }
  });

  it('are in the package npm makes of the build output, and the tests of the server are not', async () => {
    const paths = await packedPaths();
    for (const { file } of await tableFiles()) assert.ok(paths.includes(`dist/${file}`), `dist/${file} is packed`);
    assert.deepEqual(
      paths.filter((p) => p.includes('/tests/')),
      [],
    );
  });

  it("reach the operator image: the Dockerfile builds with the build script and copies the build's output", () => {
    const [, script = ''] = /^node (\S+)$/.exec(pkg.scripts.build ?? '') ?? [];
    assert.ok(script !== '', `package.json's build runs one script with node: ${pkg.scripts.build}`);
    const dockerfile = read('Dockerfile');
    const buildStage = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM '));
    assert.match(buildStage, new RegExp(`^COPY ${script} \\./${script}$`, 'm'));
    assert.match(buildStage, /^COPY src \.\/src$/m);
    assert.match(buildStage, /^RUN npm run build$/m);
    assert.match(dockerfile.slice(buildStage.length), /^COPY --from=build \/app\/dist \.\/dist$/m);
    // The local image (workbench/src/images) rebuilds when the build script changes, as docker would.
    assert.ok(OPERATOR_SOURCES.includes(script), `OPERATOR_SOURCES lists ${script}`);
  });

  it('leave in the build output nothing but the modules of src/ and the shipped files', () => {
    for (const file of STALE) assert.ok(!existsSync(path.join(staging, file)), `${file} removed by the build`);
    assert.deepEqual(staleOutputs(path.join(staging, 'dist')), []);
  });
  it('pack none of the workbench: no image, local cluster, tooling or quickstart module', async () => {
    const packed = await packedPaths();
    assert.ok(packed.includes(pkg.bin['flux-operator'] ?? ''), 'the bin is packed');
    const workbench = packed.filter(
      (file) =>
        file.startsWith('workbench/') ||
        WORKBENCH_FOLDERS.some((folder) => file.startsWith(`dist/src/${folder}/`)) ||
        /quickstart|real-node-placement/.test(file),
    );
    assert.deepEqual(workbench, []);
    // Every packed module is one of src/'s or a shipped file: nothing stale, nothing from elsewhere.
    const built = new Set([
      ...filesUnder('src').map((file) => `dist/${file.replace(/\.ts$/, '.js')}`),
      ...shippedFiles().map((file) => `dist/${file}`),
    ]);
    assert.deepEqual(
      packed.filter((file) => file.startsWith('dist/') && !built.has(file)),
      [],
    );
  });
});

describe("the operator's package and image hold the operator alone", () => {
  it('name the workbench as a workspace, outside what the package ships and what its bin runs', () => {
    assert.deepEqual(pkg.workspaces, ['workbench']);
    for (const entry of [...pkg.files, ...Object.values(pkg.bin)])
      assert.ok(!entry.startsWith('workbench'), `${entry} is the workbench's`);
    assert.match(pkg.scripts.start ?? '', /^node workbench\/src\/quickstart\/main\.ts$/);
  });

  it('build from the operator alone: the Dockerfile copies and installs nothing of the workbench', () => {
    const dockerfile = read('Dockerfile');
    assert.doesNotMatch(dockerfile, /^COPY .*workbench/m);
    assert.ok(!read('.dockerignore').includes('workbench'), '.dockerignore lets no workbench file in');
    const installs = dockerfile.split('\n').filter((line) => /^RUN npm ci /.test(line));
    assert.equal(installs.length, 2, 'the build and the dependencies stages install');
    for (const line of installs) assert.match(line, / --workspaces=false\b/, line);
    assert.ok(OPERATOR_SOURCES.every((source) => !source.startsWith('workbench')));
    assert.ok(DEPS_NPM_ARGS.includes('--workspaces=false'), 'the local image installs as the Dockerfile does');
  });
});
