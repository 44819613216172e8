// docs/v1alpha2.md documents every field of the v1alpha2 spec (a new field fails here until it is),
// and says that the operator acts on all of them, which holds while no field is refused as not yet
// rendered.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { NOT_YET_RENDERED } from '../../../src/api/not-yet-rendered.ts';
import { MiniClusterSpecSchema } from '../../../src/api/schema.ts';
import { schemaFieldPaths } from './schema-fields.ts';

const DOC = readFileSync(new URL('../../../docs/v1alpha2.md', import.meta.url), 'utf8');
const MENTIONED = new Set([...DOC.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''));

/** Fields documented as a whole where v1alpha1 documents them (storage, RESTful, bursting, ...). */
const WHOLE = [
  'volumes[]',
  'fluxRestful',
  'users[]',
  'flux.bursting',
  'pod.tolerations',
  'containers[].secrets',
  'containers[].resources',
  'flux.container.resources',
  'securityContext.sysctls',
];

/** The ways the doc may name a field path: itself, shared parts named once, or a whole it belongs to. */
function names(path: string): string[] {
  const plain = path.replaceAll('[*]', '[]');
  const shared = plain.includes('securityContext.')
    ? `securityContext.${plain.slice(plain.lastIndexOf('securityContext.') + 'securityContext.'.length)}`
    : plain.startsWith('services[].')
      ? plain.replace(/^services\[\]\./, 'containers[].')
      : plain;
  const candidates = [plain, shared];
  for (const whole of WHOLE) {
    if (shared.startsWith(`${whole}.`) || shared.startsWith(`${whole}[`)) candidates.push(whole);
  }
  return candidates;
}

describe('docs/v1alpha2.md', () => {
  it('names every field of the v1alpha2 spec', () => {
    const paths = schemaFieldPaths(MiniClusterSpecSchema);
    assert.ok(paths.length > 200);
    assert.deepEqual(
      paths.filter((path) => !names(path).some((name) => MENTIONED.has(name))),
      [],
    );
  });

  it('says the operator acts on every field, as the table of fields not acted on yet is empty', () => {
    // The doc states it in one sentence: a field added to the table makes it false.
    const said =
      /acts on every v1alpha2 field; the table of fields[^.]*\(`src\/api\/not-yet-rendered\.ts`\)\s+is empty/;
    assert.match(DOC.replaceAll('\n', ' '), said);
    assert.deepEqual(
      NOT_YET_RENDERED.map((entry) => entry.path),
      [],
    );
  });
});
