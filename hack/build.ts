// npm run build [-- --outDir DIR]: compiles src/ (tsconfig.build.json) into DIR (dist by default), then
// copies into DIR, beside the compiled modules, the files the operator ships as they are and reads at
// run time (the pods' scripts, the RESTful server: see src/flux/packaged-files.ts), which tsc leaves out,
// and removes from DIR/src what no source gives any more (the output of files moved or deleted), which
// the package (package.json's files) would otherwise still carry.
// The Dockerfile's build stage runs it, so it imports nothing of the project: only Node and tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The folders whose files the code reads at run time, each named by a table in the folder: every file
 * of them but the TypeScript is shipped; their subfolders (the RESTful server's tests) are not.
 */
export const SHIPPED_FOLDERS = ['src/flux/scripts', 'src/burst/scripts', 'src/restful'];

/** The shipped files, relative to `root` (`src/flux/scripts/entrypoint.sh`), sorted. */
export function shippedFiles(root: string = ROOT): string[] {
  return SHIPPED_FOLDERS.flatMap((folder) =>
    readdirSync(path.join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.ts'))
      .map((entry) => path.posix.join(folder, entry.name)),
  ).sort();
}

/** Copies the shipped files of `root` into the build output `outDir`, at the same paths. */
export function copyShippedFiles(outDir: string, root: string = ROOT): string[] {
  const files = shippedFiles(root);
  for (const file of files) {
    const target = path.resolve(root, outDir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(root, file), target);
  }
  return files;
}

/** The files under `dir` of `root`, relative to `root`, sorted. */
function filesUnder(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const rel = path.posix.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(root, rel) : [rel];
    })
    .sort();
}

/**
 * The files under `outDir`/src that the build of `root` does not write: neither a module compiled
 * from a src/ file nor a shipped file (relative to `outDir`, sorted).
 */
export function staleOutputs(outDir: string, root: string = ROOT): string[] {
  const written = new Set([
    ...filesUnder(root, 'src')
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, '.js')),
    ...shippedFiles(root),
  ]);
  return filesUnder(path.resolve(root, outDir), 'src').filter((file) => !written.has(file));
}

/** Removes the stale outputs of `outDir` and the folders they leave empty; returns what it removed. */
export function removeStaleOutputs(outDir: string, root: string = ROOT): string[] {
  const out = path.resolve(root, outDir);
  const stale = staleOutputs(outDir, root);
  for (const file of stale) {
    rmSync(path.join(out, file));
    for (let dir = path.dirname(path.join(out, file)); dir !== out; dir = path.dirname(dir)) {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    }
  }
  return stale;
}

function main(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { outDir: { type: 'string', default: 'dist' } } });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // The out folder is always given, so the copies below land where tsc wrote, whatever tsconfig says.
  const args = [tsc, '-p', 'tsconfig.build.json', '--outDir', values.outDir];
  const compiled = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (compiled.error) throw compiled.error;
  if (compiled.status !== 0) return compiled.status ?? 1;
  copyShippedFiles(values.outDir);
  // After the compile rather than before: the tree's dist/ stays whole while tsc runs.
  removeStaleOutputs(values.outDir);
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
