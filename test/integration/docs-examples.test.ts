// The YAML in the README and docs/ is what newcomers copy: every MiniCluster and BurstTarget there is
// applied with kubectl's server-side dry run, so the real API server checks it against the CRDs
// (schema, unknown fields, CEL rules) without creating anything.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { withNamespace } from '../harness/cluster.ts';
import { installCrd, kubectl } from '../harness/operator.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((file) => `docs/${file}`)].filter(
  (file) => file.endsWith('.md'),
);

/** The ```yaml blocks of a Markdown file that hold objects of this operator's API group. */
function operatorYamlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] ?? '')
    .filter((block) => /^apiVersion: flux-framework\.org\//m.test(block));
}

describe('YAML in the README and docs', () => {
  it('is found where it is documented', () => {
    assert.ok(operatorYamlBlocks('docs/bursting.md').length >= 3);
  });

  for (const file of SOURCES) {
    const blocks = operatorYamlBlocks(file);
    if (blocks.length === 0) continue;
    it(`${file}: the API server accepts every object (dry run)`, async (t) => {
      await installCrd();
      const namespace = await withNamespace(t, 'docs', { hostStorage: true }); // the docs show hostpath volumes too
      const dir = mkdtempSync(join(tmpdir(), 'docs-yaml-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      for (const [index, block] of blocks.entries()) {
        const path = join(dir, `${index}.yaml`);
        writeFileSync(path, block);
        const { stdout } = await kubectl(
          'apply',
          '--dry-run=server',
          '--validate=strict',
          '-n',
          namespace,
          '-f',
          path,
        ).catch((error: { stderr?: string }) => {
          throw new Error(`${file} block ${index + 1} was refused:\n${error.stderr ?? String(error)}`);
        });
        assert.match(stdout, /\(server dry run\)/);
      }
    });
  }
});
