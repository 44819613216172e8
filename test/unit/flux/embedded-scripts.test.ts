import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  EMBEDDED_MODULE,
  SCRIPT_FOLDERS,
  constantName,
  scriptFiles,
} from '../../../hack/embedded-scripts.ts';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';

/** The .sh, .py, .js and .css files under `dir`, relative to the repository root. */
function scriptsUnder(dir: string): string[] {
  return readdirSync(join(REPOSITORY_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(sh|py|js|css)$/.test(file))
    .map((file) => relative(REPOSITORY_ROOT, join(REPOSITORY_ROOT, dir, file)));
}

describe('the scripts of src/', () => {
  it('are all in a scripts folder that is embedded (and linted)', () => {
    const scripts = scriptsUnder('src');
    assert.ok(scripts.length >= 3, `only ${scripts.join(', ')}`);
    for (const script of scripts) assert.ok(SCRIPT_FOLDERS.includes(dirname(script)), script);
  });

  it('are embedded byte for byte, one constant per file', async () => {
    for (const folder of SCRIPT_FOLDERS) {
      const url = pathToFileURL(join(REPOSITORY_ROOT, folder, EMBEDDED_MODULE)).href;
      const embedded = (await import(url)) as Record<string, unknown>;
      const files = scriptFiles(REPOSITORY_ROOT, folder);
      assert.deepEqual(Object.keys(embedded).sort(), files.map(constantName).sort(), folder);
      for (const file of files) {
        assert.equal(embedded[constantName(file)], readFileSync(join(REPOSITORY_ROOT, folder, file), 'utf8'));
      }
    }
  });

  it('names each constant after its file', () => {
    assert.equal(constantName('entrypoint.sh'), 'ENTRYPOINT_SH');
    assert.equal(constantName('flux-queue.sh'), 'FLUX_QUEUE_SH');
    assert.equal(constantName('restful_server.py'), 'RESTFUL_SERVER_PY');
    assert.equal(constantName('restful_pages.js'), 'RESTFUL_PAGES_JS');
  });
});
