// The Dockerfile cannot be built in this environment's tests (no container engine); these checks keep it
// consistent with the project: the Node major, the entrypoint, the non-root user and the build context.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPERATOR_COMMAND } from '../../../src/deploy/index.ts';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';

const read = (path: string) => readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
const dockerfile = read('Dockerfile');
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const nodeVersion = read('.node-version').trim();
const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };

function args(keyword: string): string[] {
  return instructions.filter((line) => line.startsWith(`${keyword} `)).map((line) => line.slice(keyword.length + 1));
}

describe('Dockerfile', () => {
  it(`builds every stage on the Node of .node-version (${nodeVersion}), the one the tests run on`, () => {
    const images = args('FROM').map((from) => from.split(/\s+/)[0] ?? '');
    assert.ok(images.length >= 2, 'a multi-stage build');
    for (const image of images) assert.equal(image, `node:${nodeVersion}-bookworm-slim`);
  });

  it("runs package.json's bin with node, `run` by default", () => {
    const bin = pkg.bin['flux-operator'];
    assert.ok(bin);
    assert.deepEqual(args('ENTRYPOINT'), [JSON.stringify(['node', `/app/${bin}`]).replaceAll(',', ', ')]);
    assert.deepEqual(args('CMD'), ['["run"]']);
    // The Deployment's command: the bin, linked onto the PATH.
    assert.ok(
      instructions.some((line) => line.includes(`ln -s /app/${bin} /usr/local/bin/${OPERATOR_COMMAND}`)),
      `the image puts ${OPERATOR_COMMAND} on the PATH`,
    );
  });

  it('builds with dev dependencies and ships production dependencies only', () => {
    assert.ok(args('RUN').some((run) => run.includes('npm ci --no-audit')));
    assert.ok(args('RUN').some((run) => run.includes('npm run build')));
    assert.ok(args('RUN').some((run) => run.includes('npm ci --omit=dev')));
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    assert.doesNotMatch(finalStage, /--from=build \/app\/node_modules/);
    assert.match(finalStage, /COPY --from=build \/app\/dist \.\/dist/);
  });

  it('runs as a numeric non-root user (so runAsNonRoot can verify it)', () => {
    const users = args('USER');
    const user = users.at(-1) ?? '';
    assert.match(user, /^\d+(:\d+)?$/);
    assert.notEqual(user.split(':')[0], '0');
    assert.ok(dockerfile.lastIndexOf('\nUSER ') > dockerfile.lastIndexOf('\nFROM '), 'USER is set in the final stage');
  });

  it('copies from the build context only what .dockerignore lets in', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    assert.ok(read('.dockerignore').split('\n').includes('*'), '.dockerignore excludes everything by default');
    const sources = args('COPY')
      .filter((copy) => !copy.startsWith('--from='))
      .flatMap((copy) => copy.split(/\s+/).slice(0, -1));
    assert.ok(sources.length > 0);
    for (const source of sources) assert.ok(allowed.includes(source), `${source} is excluded by .dockerignore`);
  });
});
