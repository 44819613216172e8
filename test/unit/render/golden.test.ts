import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';
import { goldenRenders } from '../../../hack/golden-renders.ts';

describe('golden renders of examples/', () => {
  const goldens = goldenRenders(REPOSITORY_ROOT);

  it('has one golden file per example', () => {
    const examples = readdirSync(join(REPOSITORY_ROOT, 'examples')).filter((file) => file.endsWith('.yaml'));
    assert.equal(goldens.length, examples.length);
    assert.ok(goldens.length >= 5);
  });

  for (const golden of goldens) {
    it(`${golden.path} is what the example renders to now (run \`npm run generate\` when this fails)`, () => {
      const committed = readFileSync(join(REPOSITORY_ROOT, golden.path), 'utf8');
      assert.equal(committed, golden.content());
      assert.ok(parseAllDocuments(committed).length >= 3);
    });
  }
});
