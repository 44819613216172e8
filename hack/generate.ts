/**
 * Writes the files generated from the source: deploy/crd.yaml and deploy/burst-target-crd.yaml
 * from src/api, the golden renders of examples/ under test/golden/, and deploy/install.yaml and the
 * generated parts of the Helm chart from src/deploy.
 *
 *   node hack/generate.ts          write every target that is stale
 *   node hack/generate.ts --check  write nothing; exit 1 listing the targets that are stale
 *
 * To generate another file, add a `{ path, content }` entry to GENERATED_FILES; `content` must be
 * pure (same output on every run), since the unit tests compare it with the committed file.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { burstTargetCrd } from '../src/api/burst-target-crd.ts';
import { miniClusterCrd } from '../src/api/minicluster-crd.ts';
import { deployFiles } from './deploy-files.ts';
import { GENERATE_COMMAND, generatedHeader } from './generated-header.ts';
import { goldenRenders } from './golden-renders.ts';

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: () => string;
}

export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes the files that differ from what is generated; returns their paths. */
function writeGenerated(files: GeneratedFile[]): string[] {
  const written: string[] = [];
  for (const file of files) {
    const target = join(REPOSITORY_ROOT, file.path);
    const content = file.content();
    if (readOrUndefined(target) === content) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    written.push(file.path);
  }
  return written;
}

/** A YAML document with a header saying where it comes from. */
export function generatedYaml(source: string, document: unknown): string {
  // lineWidth 0: no folding, so a description change shows as a one-line diff.
  return `${generatedHeader(source)}\n${stringify(document, { lineWidth: 0 })}`;
}

export const GENERATED_FILES: GeneratedFile[] = [
  { path: 'deploy/crd.yaml', content: () => generatedYaml('src/api/schema.ts', miniClusterCrd()) },
  {
    path: 'deploy/burst-target-crd.yaml',
    content: () => generatedYaml('src/api/burst-target-schema.ts', burstTargetCrd()),
  },
  ...goldenRenders(REPOSITORY_ROOT),
  ...deployFiles(),
];

/** Paths of the targets whose file differs from what would be generated. */
export function staleFiles(root: string = REPOSITORY_ROOT): string[] {
  return GENERATED_FILES.filter((file) => readOrUndefined(join(root, file.path)) !== file.content()).map(
    (file) => file.path,
  );
}

function main(argv: string[]): number {
  if (argv.includes('--check')) {
    const stale = staleFiles();
    for (const path of stale) console.error(`stale: ${path} (run \`${GENERATE_COMMAND}\`)`);
    return stale.length === 0 ? 0 : 1;
  }
  const written = writeGenerated(GENERATED_FILES);
  for (const path of written) console.log(`wrote ${path}`);
  if (written.length === 0) console.log('every generated file is up to date');
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
