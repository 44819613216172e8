// npm run image:operator [-- --no-load] [-- --json]: builds localhost/flux-operator-ts:dev from the working
// tree (see workbench/src/images/operator-image.ts) and loads it into the local cluster's real node,
// replacing the tag's previous image. --no-load only writes the archive and prints where it is.
import { parseArgs } from 'node:util';
import { ensureOperatorImage } from '../workbench/src/images/index.ts';
import { stateDir } from '../workbench/src/localcluster/paths.ts';
import { loadIntoRealNode, requireRealNode } from '../workbench/src/localcluster/real-node/node.ts';

const usage = 'usage: node hack/operator-image.ts [--no-load] [--json]';
const log = (line: string) => console.error(`[operator-image] ${line}`);

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'no-load': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.length > 0) {
    console.error(usage);
    return values.help ? 0 : 2;
  }
  const load = values['no-load'] !== true;
  const dir = stateDir();
  // Before the build: the missing node is the error to see, not a minute later.
  if (load) requireRealNode(dir);
  const t0 = Date.now();
  const image = await ensureOperatorImage();
  const seconds = (Date.now() - t0) / 1000;
  log(
    `${image.reference} ${image.imageId} ${image.archive} (${(image.bytes / 2 ** 20).toFixed(0)} MiB, ` +
      `${image.reused ? 'unchanged since the last build' : 'built'} in ${seconds.toFixed(1)} s)`,
  );
  if (!image.reused) {
    const steps = Object.entries(image.seconds).map(([k, v]) => `${k} ${v} s`);
    log(`steps: ${steps.join(', ')}`);
  }
  const loaded = load ? await loadIntoRealNode(dir, [image.archive], { progress: log }) : [];
  if (load && loaded.every((l) => !l.imported))
    log(`the real node already has ${image.reference} at ${image.imageId}`);
  if (values.json) console.log(JSON.stringify({ image, seconds, loaded }, null, 2));
  else console.log(image.archive);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`[operator-image] error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
