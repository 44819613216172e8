import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { shellQuote, shellQuoteWords } from '../../../src/flux/shell.ts';

/** The argv bash gives a command written with `text` as its arguments. */
function bashArgv(text: string): string[] {
  const output = execFileSync('bash', ['-c', `printf '%s\\0' ${text}`], { encoding: 'utf8' });
  return output.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('leaves safe words bare and single-quotes the rest', () => {
    assert.equal(shellQuote('-Stbon.fanout=256'), '-Stbon.fanout=256');
    assert.equal(shellQuote('local:///run/flux/local'), 'local:///run/flux/local');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('a b'), "'a b'");
    assert.equal(shellQuote("it's"), `'it'"'"'s'`);
    assert.equal(shellQuote('$HOME'), "'$HOME'");
    assert.equal(shellQuote('flux-sample-[0-3]'), "'flux-sample-[0-3]'");
    assert.equal(shellQuote('a,b'), "'a,b'");
  });

  it('gives bash back exactly the words, whatever they contain', () => {
    const word = fc.string({
      unit: fc.oneof(
        fc.string({ minLength: 1, maxLength: 1 }),
        fc.constantFrom("'", '"', '$', '`', '\\', '\n', '*', ' ', '~', 'é'),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(
          word.filter((text) => !text.includes('\0')),
          { minLength: 1, maxLength: 5 },
        ),
        (words) => {
          assert.deepEqual(bashArgv(shellQuoteWords(words)), words);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('quotes quoted text again without backslashes, so shellcheck reads it as it is', () => {
    const inner = shellQuoteWords(['echo', "it's"]);
    const twice = shellQuoteWords(['bash', '-c', inner]);
    assert.equal(twice, `bash -c 'echo '"'"'it'"'"'"'"'"'"'"'"'s'"'"''`);
    assert.deepEqual(bashArgv(twice), ['bash', '-c', inner]);
    const shellcheck = spawnSync('shellcheck', ['-s', 'bash', '-'], {
      input: `#!/bin/bash\n${twice}\n`,
      encoding: 'utf8',
    });
    assert.equal(shellcheck.status, 0, shellcheck.stdout);
  });

  it('refuses NUL, which no argument can hold', () => {
    assert.throws(() => shellQuote('a\0b'), /NUL/);
  });
});
