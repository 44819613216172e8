// hack/zip-python-stdlib.py, run by Debian's python3 (the view's is the same Python) over a small
// stand-in for a standard library folder: what goes into the zip, what stays a file, that Python imports
// from the zip (the byte code, not the source), and that two runs make the same zip.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZIP_STDLIB_SCRIPT } from '../../../src/images/index.ts';
import { findProjectRoot } from '../../../src/tooling/project.ts';

const SCRIPT = path.join(findProjectRoot(), ZIP_STDLIB_SCRIPT);
const PYTHON = '/usr/bin/python3';
/** 2025-01-01T00:00:00Z, the images' SOURCE_DATE_EPOCH. */
const EPOCH = 1_735_689_600;

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

/** A folder shaped like a view's lib/ with lib/python3.11 in it (a new one, or `lib` made anew); returns lib/. */
function standardLibrary(lib?: string): string {
  if (lib === undefined) {
    lib = mkdtempSync(path.join(tmpdir(), 'zip-stdlib-'));
    sandboxes.push(lib);
  } else {
    rmSync(lib, { recursive: true });
    mkdirSync(lib);
  }
  const files: Record<string, string> = {
    'os.py': 'SEP = "/"\n',
    'viewmod.py': 'def fail():\n    raise ValueError("from the zip")\n',
    'viewpkg/__init__.py': 'from .part import VALUE\n',
    'viewpkg/part.py': 'VALUE = 42\n',
    'viewpkg/data.txt': 'data of a package\n',
    'viewpkg/__pycache__/part.cpython-311.pyc': 'stale byte code',
    '__pycache__/viewmod.cpython-311.pyc': 'stale byte code',
    'LICENSE.txt': 'the licence\n',
    'lib-dynload/_ext.cpython-311-x86_64-linux-gnu.so': 'an extension module',
    'site-packages/flux/__init__.py': '',
    'config-3.11-x86_64-linux-gnu/Makefile': 'all:\n',
  };
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(lib, 'python3.11', file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return lib;
}

function zipStdlib(lib: string, epoch = EPOCH) {
  return spawnSync(
    PYTHON,
    [SCRIPT, path.join(lib, 'python3.11'), path.join(lib, 'python311.zip'), String(epoch)],
    { encoding: 'utf8' },
  );
}

/** Runs Python code with only `zip` and the interpreter's own library on its path. */
function python(zip: string, code: string) {
  return spawnSync(PYTHON, ['-I', '-c', `import sys; sys.path.insert(0, ${JSON.stringify(zip)})\n${code}`], {
    encoding: 'utf8',
  });
}

describe('hack/zip-python-stdlib.py', () => {
  it('zips the modules with their byte code and the packages, leaving the files Python needs as files', () => {
    const lib = standardLibrary();
    const run = zipStdlib(lib);
    assert.equal(run.status, 0, run.stderr);
    const zip = path.join(lib, 'python311.zip');
    assert.match(run.stdout, new RegExp(`^${zip}: 3 modules, 4 files, 0 MiB\\n$`));
    const listing = python(
      zip,
      'import zipfile\nfor i in zipfile.ZipFile(sys.path[0]).infolist(): print(i.filename, i.date_time, i.compress_type)',
    );
    assert.equal(listing.status, 0, listing.stderr);
    const stamp = '(2025, 1, 1, 0, 0, 0) 0';
    assert.deepEqual(
      listing.stdout.trim().split('\n'),
      [
        'viewmod.py',
        'viewmod.pyc',
        'viewpkg/__init__.py',
        'viewpkg/__init__.pyc',
        'viewpkg/data.txt',
        'viewpkg/part.py',
        'viewpkg/part.pyc',
      ].map((name) => `${name} ${stamp}`),
    );
    assert.deepEqual(readdirSync(path.join(lib, 'python3.11')).sort(), [
      'LICENSE.txt',
      'config-3.11-x86_64-linux-gnu',
      'lib-dynload',
      'os.py',
      'site-packages',
    ]);
    assert.ok(existsSync(path.join(lib, 'python3.11/site-packages/flux/__init__.py')));
    assert.ok(existsSync(path.join(lib, 'python3.11/lib-dynload/_ext.cpython-311-x86_64-linux-gnu.so')));
  });

  it('gives Python modules it imports from their byte code, tracebacks naming the zip', () => {
    const lib = standardLibrary();
    assert.equal(zipStdlib(lib).status, 0);
    const zip = path.join(lib, 'python311.zip');
    const imported = python(
      zip,
      'import viewmod, viewpkg\nprint(viewmod.__file__, viewpkg.VALUE)\nviewmod.fail()',
    );
    assert.match(imported.stdout, new RegExp(`^${zip}/viewmod\\.pyc 42$`, 'm'));
    assert.match(imported.stderr, new RegExp(`File "${zip}/viewmod\\.py", line 2, in fail`));
    assert.match(imported.stderr, /ValueError: from the zip/);
  });

  it('makes the same zip every time, and refuses a folder without os.py or a zip already there', () => {
    // The byte code names the zip's path, the same in every build of the view (its prefix).
    const lib = standardLibrary();
    const zip = path.join(lib, 'python311.zip');
    assert.equal(zipStdlib(lib).status, 0);
    const first = readFileSync(zip);
    standardLibrary(lib);
    assert.equal(zipStdlib(lib).status, 0);
    assert.ok(first.equals(readFileSync(zip)));
    const again = zipStdlib(lib);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /python311\.zip exists already/);
    const empty = mkdtempSync(path.join(tmpdir(), 'zip-stdlib-'));
    sandboxes.push(empty);
    mkdirSync(path.join(empty, 'python3.11'));
    const refused = zipStdlib(empty);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /is not a Python standard library \(no os\.py\)/);
  });

  it('dates entries no earlier than 1980, which a zip cannot hold', () => {
    const lib = standardLibrary();
    assert.equal(zipStdlib(lib, 0).status, 0);
    const listing = python(
      path.join(lib, 'python311.zip'),
      'import zipfile\nprint(zipfile.ZipFile(sys.path[0]).infolist()[0].date_time)',
    );
    assert.equal(listing.stdout.trim(), '(1980, 1, 1, 0, 0, 0)');
  });
});
