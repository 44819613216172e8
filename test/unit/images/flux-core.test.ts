// One flux-core build for the Flux images and the view: where the cache keeps it, and how a first run's
// estimate counts it once, with the first image group that builds from it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FLUX_CORE_BUILD_SECONDS,
  FLUX_CORE_PREFIX,
  cachedFluxCore,
  fluxCoreDir,
} from '../../../workbench/src/images/index.ts';
import { uncachedImageGroups } from '../../../workbench/src/localcluster/real-node/images.ts';

function withCache(fn: (env: NodeJS.ProcessEnv) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'flux-core-test-'));
  try {
    fn({ ...process.env, FLUX_OPERATOR_CACHE: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What hack/build-flux-core.sh leaves for a complete build: the marker and PREFIX/bin/flux. */
function completeBuild(env: NodeJS.ProcessEnv): string {
  const dir = fluxCoreDir('0.88.0', env);
  const bin = path.join(dir, 'root', FLUX_CORE_PREFIX, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'flux'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(path.join(dir, 'complete'), '');
  return path.join(dir, 'root');
}

describe('cachedFluxCore', () => {
  it('is the install root only once the build is complete', () => {
    withCache((env) => {
      assert.equal(cachedFluxCore('0.88.0', env), undefined);
      const root = completeBuild(env);
      assert.equal(cachedFluxCore('0.88.0', env), root);
      assert.equal(cachedFluxCore('0.89.0', env), undefined);
      rmSync(path.join(fluxCoreDir('0.88.0', env), 'complete'));
      assert.equal(cachedFluxCore('0.88.0', env), undefined, 'a build without its marker is not complete');
    });
  });
});

describe('uncachedImageGroups and flux-core', () => {
  it('counts flux-core once, with the first group that builds from it', () => {
    withCache((env) => {
      const stages = uncachedImageGroups(['flux', 'view', 'plain', 'fluxLammps'], env);
      assert.deepEqual(
        stages.map((s) => s.group),
        ['flux', 'view', 'plain', 'fluxLammps'],
      );
      const withCore = stages.filter((s) => /flux-core/.test(s.what));
      assert.deepEqual(
        withCore.map((s) => s.group),
        ['flux'],
      );
      const [flux, view] = stages;
      assert.ok(flux && view);
      assert.ok(flux.seconds >= FLUX_CORE_BUILD_SECONDS, String(flux.seconds));
      assert.ok(view.seconds < FLUX_CORE_BUILD_SECONDS, String(view.seconds));
      // hello-world's first run: the view builds flux-core.
      const [first] = uncachedImageGroups(['view', 'plain'], env);
      assert.equal(first?.group, 'view');
      assert.match(first.what, /flux-core/);
      assert.ok(first.seconds >= FLUX_CORE_BUILD_SECONDS);
    });
  });

  it('counts no flux-core when the cache has it', () => {
    withCache((env) => {
      completeBuild(env);
      const stages = uncachedImageGroups(['flux', 'view'], env);
      assert.equal(stages.length, 2);
      for (const stage of stages) {
        assert.doesNotMatch(stage.what, /flux-core/);
        assert.ok(stage.seconds < FLUX_CORE_BUILD_SECONDS, `${stage.group}: ${stage.seconds}`);
      }
    });
  });
});
