// The upstream Go Flux Operator for side-by-side runs: built once from the archive in ../shared/deps
// into the project's cache (a folder named by a hash of its inputs), with the CRD of that source beside it.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { sha256File } from '../../workbench/src/images/image-archive.ts';
import { withExclusiveLock } from '../../workbench/src/images/lock.ts';
import { runCommand } from '../../workbench/src/tooling/command.ts';
import { cacheRoot, depsFile } from '../../workbench/src/tooling/project.ts';

export const GO_OPERATOR_ARCHIVE = 'flux-operator-go-0d75cef8.tar.gz';
export const GO_OPERATOR_COMMIT = '0d75cef8';
/** The MiniCluster CRD (v1alpha2) in the Go operator's source. */
export const GO_CRD_SOURCE = 'config/crd/bases/flux-framework.org_miniclusters.yaml';

/** The build, as run at the root of the unpacked source. */
export function goBuildArgs(output: string): string[] {
  return ['build', '-trimpath', '-o', output, '.'];
}
/** GOTOOLCHAIN=local: the installed Go builds it (go.mod asks for 1.24) rather than one fetched. */
export const GO_BUILD_ENV = { GOTOOLCHAIN: 'local', CGO_ENABLED: '0' } as const;

const BINARY = 'flux-operator';
const CRD = 'miniclusters-crd.yaml';
const RECORD = 'build.json';

export interface GoOperator {
  binary: string;
  crd: string;
  commit: string;
}

/** Names the cache folder: changes with the archive, the Go toolchain and the build command. */
export function goOperatorKey(inputs: { archiveSha256: string; goVersion: string }): string {
  const value = { ...inputs, args: goBuildArgs('OUTPUT'), env: GO_BUILD_ENV };
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

export function goOperatorDir(key: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'go-operator', `${GO_OPERATOR_COMMIT}-${key}`);
}

/** `go` on PATH, else where the official tarball installs it. */
function goCommand(env: NodeJS.ProcessEnv): string {
  for (const dir of [...(env.PATH ?? '').split(':'), '/usr/local/go/bin']) {
    if (dir !== '' && existsSync(path.join(dir, 'go'))) return path.join(dir, 'go');
  }
  throw new Error('building the Go Flux Operator needs Go (go on PATH or /usr/local/go/bin/go)');
}

function cached(dir: string, commit: string): GoOperator | undefined {
  const files = [BINARY, CRD, RECORD].map((name) => path.join(dir, name));
  return files.every((file) => existsSync(file))
    ? { binary: path.join(dir, BINARY), crd: path.join(dir, CRD), commit }
    : undefined;
}

/** The Go operator's binary and CRD, building them first when the cache lacks them. */
export async function ensureGoOperator(options: {
  progress: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<GoOperator> {
  const env = options.env ?? process.env;
  const archive = depsFile(GO_OPERATOR_ARCHIVE, env);
  const go = goCommand(env);
  const goVersion = (await runCommand(go, ['version'], { env })).trim();
  const archiveSha256 = await sha256File(archive);
  const dir = goOperatorDir(goOperatorKey({ archiveSha256, goVersion }), env);
  const hit = cached(dir, GO_OPERATOR_COMMIT);
  if (hit) return hit;
  return withExclusiveLock(
    `${dir}.lock`,
    () => options.progress(`another process is building ${dir}; waiting for it`),
    async () => {
      const again = cached(dir, GO_OPERATOR_COMMIT);
      if (again) return again;
      await build({ archive, archiveSha256, go, goVersion, dir, env, progress: options.progress });
      return cached(dir, GO_OPERATOR_COMMIT) as GoOperator;
    },
  );
}

async function build(inputs: {
  archive: string;
  archiveSha256: string;
  go: string;
  goVersion: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  progress: (line: string) => void;
}): Promise<void> {
  const { archive, dir, progress } = inputs;
  progress(
    `building the upstream Go Flux Operator (${GO_OPERATOR_COMMIT}) with ${inputs.goVersion} into ${dir}; ` +
      'done once, its modules come through the Go module proxy (a few minutes on 2 cores)',
  );
  const started = Date.now();
  const timer = setInterval(
    () => progress(`still building the Go operator (${Math.round((Date.now() - started) / 1000)} s so far)`),
    60_000,
  );
  mkdirSync(path.dirname(dir), { recursive: true });
  const work = mkdtempSync(`${dir}.src-`);
  try {
    await runCommand('tar', ['-xzf', archive, '-C', work]);
    const roots = readdirSync(work).filter((name) => existsSync(path.join(work, name, 'go.mod')));
    if (roots.length !== 1)
      throw new Error(`${archive} does not hold one Go module folder (found ${roots.join(', ')})`);
    const root = path.join(work, roots[0] as string);
    mkdirSync(dir, { recursive: true });
    const partial = path.join(dir, `${BINARY}.partial`);
    await runCommand(inputs.go, goBuildArgs(partial), {
      cwd: root,
      env: { ...inputs.env, ...GO_BUILD_ENV },
      onLine: (line) => progress(line),
    });
    copyFileSync(path.join(root, GO_CRD_SOURCE), path.join(dir, CRD));
    renameSync(partial, path.join(dir, BINARY));
    const record = {
      commit: GO_OPERATOR_COMMIT,
      archive: path.basename(archive),
      archiveSha256: inputs.archiveSha256,
      goVersion: inputs.goVersion,
      seconds: Math.round((Date.now() - started) / 1000),
      builtAt: new Date().toISOString(),
    };
    writeFileSync(path.join(dir, RECORD), `${JSON.stringify(record, null, 2)}\n`);
    progress(`built the Go operator in ${record.seconds} s`);
  } finally {
    clearInterval(timer);
    rmSync(work, { recursive: true, force: true });
  }
}
