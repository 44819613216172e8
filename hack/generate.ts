/**
 * Writes the files generated from the source: deploy/crd.yaml and deploy/burst-target-crd.yaml
 * from src/api, the golden
 * renders of examples/ under test/golden/, and deploy/install.yaml and the generated parts of the
 * Helm chart from src/deploy.
 *
 *   node hack/generate.ts          write every target
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
import { miniClusterCrd } from '../src/api/crd.ts';
import { deployFiles } from './deploy-files.ts';
import { GENERATE_COMMAND, generatedHeader } from './generated-header.ts';
import { goldenRenders } from './golden-renders.ts';

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: () => string;
}

export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

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

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

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
  for (const file of GENERATED_FILES) {
    const target = join(REPOSITORY_ROOT, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content());
    console.log(`wrote ${file.path}`);
  }
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
