// The stand-in of the Go operator's view images (localhost/flux-view-spack-layout): its recipe, cache key
// and layout. What the built image holds is checked where it runs: the init container's copy and the
// MiniCluster on the real node (test/e2e/scenarios/go-v1alpha2-examples.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  spackViewHash,
  spackViewKey,
  spackViewLayout,
  spackViewRecipe,
} from '../../../workbench/src/images/index.ts';

const IDS = { viewImageId: 'sha256:aaaa', baseImageId: 'sha256:bbbb' };

describe('spackViewRecipe', () => {
  it('names localhost/flux-view-spack-layout:<flux-core version>, made of the view and plain bookworm images', () => {
    const recipe = spackViewRecipe('0.88.0', IDS);
    assert.equal(recipe.reference, 'localhost/flux-view-spack-layout:0.88.0');
    assert.equal(recipe.viewImageId, 'sha256:aaaa');
    assert.equal(recipe.baseImageId, 'sha256:bbbb');
    assert.deepEqual(recipe.config.cmd, ['/bin/sh']);
  });

  it('builds anew when either image it is made of changes, and only then', () => {
    const key = spackViewKey(spackViewRecipe('0.88.0', IDS));
    assert.match(key, /^[0-9a-f]{16}$/);
    assert.equal(spackViewKey(spackViewRecipe('0.88.0', { ...IDS })), key);
    assert.notEqual(spackViewKey(spackViewRecipe('0.88.0', { ...IDS, viewImageId: 'sha256:cccc' })), key);
    assert.notEqual(spackViewKey(spackViewRecipe('0.88.0', { ...IDS, baseImageId: 'sha256:cccc' })), key);
    assert.notEqual(spackViewKey(spackViewRecipe('0.89.0', IDS)), key);
  });
});

describe('spackViewLayout', () => {
  it('puts the view where the Go operator`s init container looks for it, with /opt/view a link to it', () => {
    const recipe = spackViewRecipe('0.88.0', IDS);
    const layout = spackViewLayout(recipe);
    // Spack names a view's folder with 32 characters of its base32 alphabet.
    assert.match(spackViewHash(recipe), /^[a-z2-7]{32}$/);
    assert.equal(layout.view, `/opt/views/._view/${spackViewHash(recipe)}`);
    assert.equal(layout.viewLink, '/opt/view');
    assert.deepEqual(layout.shell, { path: '/usr/bin/sh', target: 'bash' });
  });

  it('moves libzmq, which Flux loads and bash and coreutils do not, to a package of /opt/software', () => {
    const layout = spackViewLayout(spackViewRecipe('0.88.0', IDS));
    assert.equal(layout.moves.length, 1);
    const [move] = layout.moves;
    assert.equal(move?.from, `${layout.view}/lib/libzmq.so.5`);
    assert.match(
      move?.to ?? '',
      /^\/opt\/software\/linux-debian12-x86_64\/gcc-12\.2\.0\/zeromq-4\.3\.4-[a-z0-9]{32}\/lib\/libzmq\.so\.5$/,
    );
  });
});
