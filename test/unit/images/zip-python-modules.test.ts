// hack/zip-python-modules.py, run by Debian's python3 (the view's is the same Python) over small stand-ins
// for the view's standard library and dist-packages folders: what goes into the zip, what stays a file,
// that Python imports from the zip (the byte code, not the source), and that two runs make the same zip.
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
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZIP_MODULES_SCRIPT } from '../../../workbench/src/images/index.ts';
import { findProjectRoot } from '../../../workbench/src/tooling/project.ts';

const SCRIPT = path.join(findProjectRoot(), ZIP_MODULES_SCRIPT);
const PYTHON = '/usr/bin/python3';
/** 2025-01-01T00:00:00Z, the images' SOURCE_DATE_EPOCH. */
const EPOCH = 1_735_689_600;

const sandboxes: string[] = [];
after(() => {
  for (const sandbox of sandboxes) rmSync(sandbox, { recursive: true, force: true });
});

/** Files of a stand-in for the view's lib/python3.11 (text, or a link's target). */
const STDLIB: Record<string, string | { link: string }> = {
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
  'site-packages/_flux/_core.so': 'an extension module',
  'config-3.11-x86_64-linux-gnu/libpython3.11.so': { link: '../../libpython3.11.so.1' },
};

/** Files of a stand-in for the view's lib/python3/dist-packages. */
const DIST_PACKAGES: Record<string, string | { link: string }> = {
  'flux-core.pth': '/mnt/flux/view/lib/python3.11/site-packages\n',
  '_cffi_backend.cpython-311-x86_64-linux-gnu.so': 'an extension module',
  'cffi/__init__.py': '__version__ = "1.15.1"\n',
  'cffi-1.15.1.egg-info/PKG-INFO': 'Name: cffi\n',
  'yaml/__init__.py': 'from ._yaml import *\n',
  'yaml/_yaml.cpython-311-x86_64-linux-gnu.so': 'an extension module',
};

/** A new folder holding `folder` with `files` (or `at` made anew); returns the parent folder. */
function tree(folder: string, files: Record<string, string | { link: string }>, at?: string): string {
  let parent = at;
  if (parent === undefined) {
    parent = mkdtempSync(path.join(tmpdir(), 'zip-modules-'));
    sandboxes.push(parent);
  } else {
    rmSync(parent, { recursive: true });
    mkdirSync(parent);
  }
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(parent, folder, file);
    mkdirSync(path.dirname(target), { recursive: true });
    if (typeof content === 'string') writeFileSync(target, content);
    else symlinkSync(content.link, target);
  }
  return parent;
}

function zipModules(folder: string, zip: string, keep: string[] = [], epoch = EPOCH) {
  return spawnSync(PYTHON, [SCRIPT, folder, zip, String(epoch), ...keep], { encoding: 'utf8' });
}

/** Runs Python code with only `zip` and the interpreter's own library on its path. */
function python(zip: string, code: string) {
  return spawnSync(PYTHON, ['-I', '-c', `import sys; sys.path.insert(0, ${JSON.stringify(zip)})\n${code}`], {
    encoding: 'utf8',
  });
}

/** The zip's entries as `name (date) compression`. */
function listing(zip: string): string[] {
  const listed = python(
    zip,
    'import zipfile\nfor i in zipfile.ZipFile(sys.path[0]).infolist(): print(i.filename, i.date_time, i.compress_type)',
  );
  assert.equal(listed.status, 0, listed.stderr);
  return listed.stdout.trim().split('\n');
}

const STORED_AT_EPOCH = '(2025, 1, 1, 0, 0, 0) 0';

describe('hack/zip-python-modules.py', () => {
  it('zips the standard library with its byte code, leaving what Python needs as files', () => {
    const lib = tree('python3.11', STDLIB);
    const zip = path.join(lib, 'python311.zip');
    const run = zipModules(path.join(lib, 'python3.11'), zip, ['os.py']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${zip}: 3 modules, 4 files, 0 MiB\n`);
    assert.deepEqual(
      listing(zip),
      [
        'viewmod.py',
        'viewmod.pyc',
        'viewpkg/__init__.py',
        'viewpkg/__init__.pyc',
        'viewpkg/data.txt',
        'viewpkg/part.py',
        'viewpkg/part.pyc',
      ].map((name) => `${name} ${STORED_AT_EPOCH}`),
    );
    // Folders with an extension module (a link to one too) stay, with all they hold.
    assert.deepEqual(readdirSync(path.join(lib, 'python3.11')).sort(), [
      'LICENSE.txt',
      'config-3.11-x86_64-linux-gnu',
      'lib-dynload',
      'os.py',
      'site-packages',
    ]);
    assert.ok(existsSync(path.join(lib, 'python3.11/site-packages/flux/__init__.py')));
  });

  it('zips pure packages with their metadata, leaving .pth files, extension modules and packages with one', () => {
    const lib = tree('dist-packages', DIST_PACKAGES);
    const zip = path.join(lib, 'dist-packages.zip');
    const run = zipModules(path.join(lib, 'dist-packages'), zip);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(
      listing(zip),
      ['cffi/__init__.py', 'cffi/__init__.pyc', 'cffi-1.15.1.egg-info/PKG-INFO'].map(
        (name) => `${name} ${STORED_AT_EPOCH}`,
      ),
    );
    assert.deepEqual(readdirSync(path.join(lib, 'dist-packages')).sort(), [
      '_cffi_backend.cpython-311-x86_64-linux-gnu.so',
      'flux-core.pth',
      'yaml',
    ]);
    const version = python(zip, 'import cffi, importlib.metadata\nprint(cffi.__version__, cffi.__file__)');
    assert.equal(version.stdout, `1.15.1 ${zip}/cffi/__init__.pyc\n`, version.stderr);
  });

  it('gives Python modules it imports from their byte code, tracebacks naming the zip', () => {
    const lib = tree('python3.11', STDLIB);
    const zip = path.join(lib, 'python311.zip');
    assert.equal(zipModules(path.join(lib, 'python3.11'), zip, ['os.py']).status, 0);
    const imported = python(
      zip,
      'import viewmod, viewpkg\nprint(viewmod.__file__, viewpkg.VALUE)\nviewmod.fail()',
    );
    assert.match(imported.stdout, new RegExp(`^${zip}/viewmod\\.pyc 42$`, 'm'));
    assert.match(imported.stderr, new RegExp(`File "${zip}/viewmod\\.py", line 2, in fail`));
    assert.match(imported.stderr, /ValueError: from the zip/);
  });

  it('makes the same zip every time', () => {
    // The byte code names the zip's path, the same in every build of the view (its prefix).
    const lib = tree('python3.11', STDLIB);
    const zip = path.join(lib, 'python311.zip');
    assert.equal(zipModules(path.join(lib, 'python3.11'), zip, ['os.py']).status, 0);
    const first = readFileSync(zip);
    tree('python3.11', STDLIB, lib);
    assert.equal(zipModules(path.join(lib, 'python3.11'), zip, ['os.py']).status, 0);
    assert.ok(first.equals(readFileSync(zip)));
  });

  it('dates entries no earlier than 1980, which a zip cannot hold', () => {
    const lib = tree('python3.11', STDLIB);
    const zip = path.join(lib, 'python311.zip');
    assert.equal(zipModules(path.join(lib, 'python3.11'), zip, ['os.py'], 0).status, 0);
    assert.match(listing(zip)[0] ?? '', / \(1980, 1, 1, 0, 0, 0\) 0$/);
  });

  it('refuses a zip already there, a name to keep that is not there and a folder that is not one', () => {
    const lib = tree('python3.11', STDLIB);
    const folder = path.join(lib, 'python3.11');
    const zip = path.join(lib, 'python311.zip');
    const refusals: [string[], RegExp][] = [
      [[folder, zip, String(EPOCH), 'os.py', 'ntpath.py'], /python3\.11 has no ntpath\.py to keep$/m],
      [[path.join(lib, 'absent'), zip, String(EPOCH)], /absent is not a folder$/m],
    ];
    for (const [args, message] of refusals) {
      const refused = spawnSync(PYTHON, [SCRIPT, ...args], { encoding: 'utf8' });
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, message);
      assert.equal(existsSync(zip), false);
    }
    assert.equal(zipModules(folder, zip, ['os.py']).status, 0);
    const again = zipModules(folder, zip, ['os.py']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /python311\.zip exists already$/m);
  });
});
