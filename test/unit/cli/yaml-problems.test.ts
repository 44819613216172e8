import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseManifestText, type ManifestDocument } from '../../../src/cli/manifests.ts';

function problemsOf(text: string): string[] {
  const documents: ManifestDocument[] = [];
  const problems: string[] = [];
  parseManifestText('mc.yaml', text, documents, problems);
  return problems;
}

describe('YAML problems of manifests', () => {
  it('name a duplicated key, its path and where it was first set, in any document of the file', () => {
    const text = [
      'kind: ConfigMap',
      '---',
      'spec:',
      '  interactive: true',
      '  size: 2',
      '  interactive: false',
      '  containers:',
      '    - command: a',
      '      command: b',
      '',
    ].join('\n');
    assert.deepEqual(problemsOf(text), [
      'mc.yaml:6:3: invalid YAML: the key "interactive" is set twice (spec.interactive, first at line 4); keep one of them',
      'mc.yaml:9:7: invalid YAML: the key "command" is set twice (spec.containers[0].command, first at line 8); keep one of them',
    ]);
  });

  it("keep the library's first line for other errors", () => {
    const [problem] = problemsOf('spec: [unclosed\n');
    assert.match(problem ?? '', /^mc\.yaml:\d+:\d+: invalid YAML: \S/);
  });
});
