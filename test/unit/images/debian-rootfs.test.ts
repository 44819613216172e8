import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEBIAN_MIRRORS,
  DEBIAN_SUITE,
  debianFolderArgs,
  debianImageFields,
  debianMirrors,
  mmdebstrapHistory,
} from '../../../workbench/src/images/index.ts';
import { BASH_IMAGE_CONFIG, BOOKWORM_MIRRORS } from './fixtures.ts';

describe('debianMirrors', () => {
  it("lists a suite's archive, its updates and its security updates; Debian 12's are the default", () => {
    assert.equal(DEBIAN_SUITE, 'bookworm');
    assert.deepEqual(DEBIAN_MIRRORS, BOOKWORM_MIRRORS);
    assert.deepEqual(debianMirrors('trixie'), [
      'deb http://deb.debian.org/debian trixie main',
      'deb http://deb.debian.org/debian trixie-updates main',
      'deb http://deb.debian.org/debian-security trixie-security main',
    ]);
  });
});

describe('debianImageFields', () => {
  it("is the suite's mirrors, a copy of the packages, SOURCE_DATE_EPOCH and bash as root", () => {
    const packages = ['mpich'];
    const fields = debianImageFields('bookworm', packages);
    assert.deepEqual(fields, {
      suite: 'bookworm',
      mirrors: BOOKWORM_MIRRORS,
      packages: ['mpich'],
      sourceDateEpoch: 1_735_689_600,
      config: BASH_IMAGE_CONFIG,
    });
    fields.packages.push('hwloc');
    fields.mirrors.pop();
    assert.deepEqual(packages, ['mpich']);
    assert.deepEqual(DEBIAN_MIRRORS, BOOKWORM_MIRRORS);
  });
});

describe('debianFolderArgs', () => {
  it('puts the options between the common ones and the suite, the folder and the mirrors', () => {
    const rootfs = { suite: 'trixie', mirrors: debianMirrors('trixie'), packages: ['coreutils', 'bash'] };
    assert.deepEqual(debianFolderArgs('extract', rootfs, '/out', ['--hook-dir=/h']), [
      '--variant=extract',
      '--mode=root',
      '--format=directory',
      '--architectures=amd64',
      '--include=bash,coreutils',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/info/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--hook-dir=/h',
      'trixie',
      '/out',
      ...debianMirrors('trixie'),
    ]);
    assert.throws(() => debianFolderArgs('essential', rootfs, 'out', []), /output must be an absolute path/);
  });

  it('names the layer it made in the history as mmdebstrap was asked, packages in the order given', () => {
    assert.equal(
      mmdebstrapHistory('essential', 'bookworm', ['mpich', 'netpipe-mpich2']),
      'mmdebstrap --variant=essential bookworm mpich netpipe-mpich2',
    );
  });
});
