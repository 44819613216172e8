// The operator image has two recipes: the Dockerfile (for docker and releases) and
// workbench/src/images/operator-image.ts (for the local cluster, without docker). These tests read what the Dockerfile's final stage declares and
// check that an archive written by the second recipe (from small stand-in layers) holds the same: change
// one recipe without the other and they fail.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  APP_DIR,
  NODE_BINARY_PATH,
  appLayerEntries,
  depsKey,
  nodeImageEnv,
  nodeLayerEntries,
  npmEnv,
  operatorImageRecipe,
  readArchiveManifest,
  readOperatorRecipe,
  readTarMember,
  runtimeKey,
  treeDigest,
  writeAppLayer,
  writeDepsLayer,
  writeOperatorArchive,
  writeTar,
} from '../../../workbench/src/images/index.ts';
import type { BaseEtc, BaseFile, OperatorImageRecipe } from '../../../workbench/src/images/index.ts';
import { findProjectRoot } from '../../../workbench/src/tooling/project.ts';

const execFileAsync = promisify(execFile);
const root = findProjectRoot();

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions per stage: comments dropped, continued lines joined. */
function dockerfileStages(text: string): Instruction[][] {
  const lines = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') stages.push([]);
    const stage = stages.at(-1);
    assert.ok(stage, `${line}: an instruction before FROM`);
    stage.push(instruction);
  }
  return stages;
}

/** What the final stage declares about the image, in the image config's terms. */
interface Declared {
  from: string;
  env: string[];
  workingDir: string;
  user: string;
  exposedPorts: Record<string, object>;
  entrypoint: string[];
  cmd: string[];
  /** Absolute paths COPY writes, with whether it sets an owner. */
  copies: { path: string; chown: boolean }[];
  chmods: { path: string; mode: number }[];
  links: { path: string; target: string }[];
}

function declared(stage: Instruction[]): Declared {
  const all = (keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);
  const last = (keyword: string): string => {
    const value = all(keyword).at(-1);
    assert.ok(value !== undefined, `the final stage has no ${keyword}`);
    return value;
  };
  const execForm = (keyword: string): string[] => {
    const value = JSON.parse(last(keyword)) as unknown;
    assert.ok(Array.isArray(value), `${keyword} in exec form`);
    return value as string[];
  };
  let workingDir = '/';
  const copies: Declared['copies'] = [];
  for (const { keyword, args } of stage) {
    if (keyword === 'WORKDIR') workingDir = path.posix.resolve(workingDir, args);
    if (keyword === 'COPY') {
      const words = args.split(/\s+/);
      const dest = words.at(-1) ?? '';
      copies.push({
        path: path.posix.resolve(workingDir, dest),
        chown: words.some((w) => w.startsWith('--chown')),
      });
    }
  }
  const runs = all('RUN').join(' && ');
  return {
    from: stage[0]?.args.split(/\s+/)[0] ?? '',
    env: all('ENV').flatMap((args) =>
      args.includes('=')
        ? [...args.matchAll(/(\S+?)=("[^"]*"|\S+)/g)].map(
            ([, k, v = '']) => `${k}=${v.replace(/^"|"$/g, '')}`,
          )
        : [args.replace(/\s+/, '=')],
    ),
    workingDir,
    user: last('USER'),
    exposedPorts: Object.fromEntries(
      all('EXPOSE')
        .flatMap((args) => args.split(/\s+/))
        .map((p) => [p.includes('/') ? p : `${p}/tcp`, {}]),
    ),
    entrypoint: execForm('ENTRYPOINT'),
    cmd: execForm('CMD'),
    copies,
    chmods: [...runs.matchAll(/chmod (\d+) (\S+)/g)].map(([, mode = '', p = '']) => ({
      path: p,
      mode: parseInt(mode, 8),
    })),
    links: [...runs.matchAll(/ln -s (\S+) (\S+)/g)].map(([, target = '', p = '']) => ({ path: p, target })),
  };
}

const stages = dockerfileStages(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
const finalStage = declared(stages.at(-1) ?? []);
const nodeVersion = readFileSync(path.join(root, '.node-version'), 'utf8').trim();
const recipe = readOperatorRecipe(root);

interface ListedEntry {
  path: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  target?: string;
}

/** The entries of one layer of an archive, by absolute path, as `tar -tv` lists them. */
async function layerListing(archive: string, layer: string): Promise<ListedEntry[]> {
  const { stdout } = await execFileAsync(
    'bash',
    ['-c', 'set -o pipefail; tar -xOf "$1" "$2" | tar -tv --numeric-owner', 'list', archive, layer],
    { maxBuffer: 1 << 24 },
  );
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const m = /^(\S)(\S{9})\s+(\d+)\/(\d+)\s+\d+\s+\S+\s+\S+\s+(.+?)(?: -> (.+))?$/.exec(line);
      assert.ok(m, `unexpected tar listing line: ${line}`);
      const [, type = '', perms = '', uid = '', gid = '', name = '', target] = m;
      const mode = [...perms].reduce((acc, c) => (acc << 1) | (c === '-' ? 0 : 1), 0);
      return {
        path: `/${name.replace(/\/$/, '')}`,
        type,
        mode,
        uid: Number(uid),
        gid: Number(gid),
        ...(target !== undefined ? { target } : {}),
      };
    });
}

function file(text: string, mode = 0o644, gid = 0): BaseFile {
  return { data: Buffer.from(text), mode, uid: 0, gid };
}

/** /etc of a Debian base, as much of it as the node layer reads. */
const baseEtc: BaseEtc = {
  passwd: file('root:x:0:0:root:/root:/bin/bash\n'),
  group: file('root:x:0:\nshadow:x:42:\n'),
  shadow: file('root:*:20089:0:99999:7:::\n', 0o640, 42),
  gshadow: file('root:*::\nshadow:*::\n', 0o640, 42),
  skel: { '.bashrc': file('# bashrc\n') },
};

describe('the operator image and the Dockerfile', () => {
  let dir = '';
  let archive = '';
  let config: Record<string, unknown> = {};
  /** Every entry of the image's file system, later layers over earlier ones. */
  const files = new Map<string, ListedEntry>();
  let passwd = '';
  let group = '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'operator-image-test-'));
    const base = path.join(dir, 'base.tar');
    await writeTar(base, [
      { type: 'directory', path: 'etc', mode: 0o755 },
      { type: 'file', path: 'etc/passwd', mode: 0o644, data: baseEtc.passwd.data },
    ]);
    const nodeBinary = path.join(dir, 'node');
    writeFileSync(nodeBinary, '#!/bin/sh\n', { mode: 0o755 });
    const node = path.join(dir, 'node.tar');
    await writeTar(node, nodeLayerEntries(recipe, baseEtc, nodeBinary));
    const modules = path.join(dir, 'node_modules', 'yaml');
    mkdirSync(modules, { recursive: true });
    writeFileSync(path.join(modules, 'package.json'), '{"name":"yaml"}\n');
    const deps = await writeDepsLayer(path.join(dir, 'node_modules'), path.join(dir, 'deps.tar'));
    const app = path.join(dir, 'app');
    mkdirSync(path.join(app, path.dirname(recipe.main)), { recursive: true });
    writeFileSync(path.join(app, recipe.main), '#!/usr/bin/env node\n', { mode: 0o644 });
    writeFileSync(path.join(app, 'package.json'), '{}\n');
    await writeAppLayer(recipe, app, path.join(dir, 'app.tar'));
    archive = path.join(dir, 'image.tar');
    await writeOperatorArchive(recipe, { base, node, deps, app: path.join(dir, 'app.tar') }, archive);

    const [image] = await readArchiveManifest(archive);
    assert.ok(image);
    assert.deepEqual(image.RepoTags, ['localhost/flux-operator-ts:dev']);
    config = (JSON.parse(await readTarMember(archive, image.Config)) as { config: Record<string, unknown> })
      .config;
    for (const layer of image.Layers) {
      for (const entry of await layerListing(archive, layer)) files.set(entry.path, entry);
    }
    const nodeLayer = image.Layers[1] ?? '';
    const etcFile = async (name: string) => {
      const { stdout } = await execFileAsync('bash', [
        '-c',
        'set -o pipefail; tar -xOf "$1" "$2" | tar -xO "$3"',
        'read',
        archive,
        nodeLayer,
        name,
      ]);
      return stdout;
    };
    passwd = await etcFile('etc/passwd');
    group = await etcFile('etc/group');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`runs the Node of .node-version (${nodeVersion}) on the Debian suite of the Dockerfile's base`, () => {
    assert.equal(recipe.nodeVersion, nodeVersion);
    for (const stage of stages) {
      assert.equal(stage[0]?.args.split(/\s+/)[0], `node:${recipe.nodeVersion}-${recipe.base.suite}-slim`);
    }
    assert.equal(finalStage.from, `node:${nodeVersion}-${recipe.base.suite}-slim`);
    const nodeBinary = files.get(NODE_BINARY_PATH);
    assert.equal(nodeBinary?.type, '-');
    assert.equal(nodeBinary?.mode, 0o755);
  });

  it("has the final stage's config: the node image's environment plus ENV, WORKDIR, USER, EXPOSE, ENTRYPOINT, CMD", () => {
    assert.deepEqual(config, {
      Env: [...nodeImageEnv(nodeVersion), ...finalStage.env],
      WorkingDir: finalStage.workingDir,
      User: finalStage.user,
      ExposedPorts: finalStage.exposedPorts,
      Entrypoint: finalStage.entrypoint,
      Cmd: finalStage.cmd,
    });
  });

  it('holds what COPY writes, owned by root, where the Dockerfile puts it', () => {
    assert.ok(finalStage.copies.length >= 3);
    for (const copy of finalStage.copies) {
      const entry = files.get(copy.path);
      assert.ok(entry, `${copy.path} is in the image`);
      if (!copy.chown) assert.deepEqual([entry.uid, entry.gid], [0, 0], `${copy.path} is root's`);
    }
    assert.equal(files.get(APP_DIR)?.type, 'd');
  });

  it("applies the final stage's RUN: the entrypoint executable and linked onto the PATH", () => {
    assert.ok(finalStage.chmods.length > 0 && finalStage.links.length > 0);
    for (const { path: p, mode } of finalStage.chmods) assert.equal(files.get(p)?.mode, mode, p);
    for (const { path: p, target } of finalStage.links) {
      assert.deepEqual([files.get(p)?.type, files.get(p)?.target], ['l', target], p);
    }
  });

  it("has the node image's user for USER: node, uid and gid 1000, with its home", () => {
    const [uid, gid = uid] = finalStage.user.split(':');
    assert.ok(passwd.split('\n').includes(`node:x:${uid}:${gid}::/home/node:/bin/bash`), passwd);
    assert.ok(group.split('\n').includes(`node:x:${gid}:`), group);
    const home = files.get('/home/node');
    assert.deepEqual([home?.type, home?.uid, home?.gid, home?.mode], ['d', Number(uid), Number(gid), 0o755]);
  });
});

describe('operator image recipe', () => {
  const withChange = (change: (r: OperatorImageRecipe) => void): OperatorImageRecipe => {
    const copy = structuredClone(recipe);
    change(copy);
    return copy;
  };

  it('names the base and node layers by what makes them', () => {
    assert.equal(runtimeKey(recipe), runtimeKey(operatorImageRecipe(nodeVersion, recipe.main)));
    const keys = [
      runtimeKey(recipe),
      runtimeKey(operatorImageRecipe('24.0.0', recipe.main)),
      runtimeKey(withChange((r) => r.base.packages.push('ca-certificates'))),
      runtimeKey(withChange((r) => (r.base.hookDirs = []))),
      runtimeKey(withChange((r) => (r.user.homeMode = 0o750))),
      runtimeKey(withChange((r) => (r.revision += 1))),
    ];
    assert.equal(new Set(keys).size, keys.length, keys.join(' '));
  });

  it('names the dependencies by the lock file and the declared dependencies, not the scripts', () => {
    const pkg = { name: 'x', scripts: { build: 'tsc' }, dependencies: { yaml: '^2' } };
    const key = depsKey(recipe, JSON.stringify(pkg), '{"lock":1}');
    assert.equal(depsKey(recipe, JSON.stringify({ ...pkg, scripts: {} }), '{"lock":1}'), key);
    assert.notEqual(depsKey(recipe, JSON.stringify(pkg), '{"lock":2}'), key);
    assert.notEqual(
      depsKey(recipe, JSON.stringify({ ...pkg, dependencies: { yaml: '^3' } }), '{"lock":1}'),
      key,
    );
  });

  it('refuses an app folder without the entrypoint', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'operator-image-test-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), '{}\n');
      await assert.rejects(async () => {
        for await (const entry of appLayerEntries(recipe, dir)) assert.ok(entry);
      }, /has no dist\/src\/cli\/main\.js/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('digests a tree by names and contents', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'operator-image-test-'));
    try {
      mkdirSync(path.join(dir, 'src'));
      writeFileSync(path.join(dir, 'src', 'a.ts'), 'a');
      const first = await treeDigest(dir, ['src']);
      assert.equal(await treeDigest(dir, ['src']), first);
      writeFileSync(path.join(dir, 'src', 'a.ts'), 'b');
      const changed = await treeDigest(dir, ['src']);
      assert.notEqual(changed, first);
      writeFileSync(path.join(dir, 'src', 'b.ts'), '');
      assert.notEqual(await treeDigest(dir, ['src']), changed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs npm without the variables of the `npm run` that started it (they name the project's folder)", () => {
    const env = npmEnv({
      PATH: '/bin',
      npm_config_local_prefix: '/work',
      NPM_CONFIG_CACHE: '/c',
      INIT_CWD: '/w',
    });
    assert.deepEqual(env, { PATH: '/bin' });
  });
});
