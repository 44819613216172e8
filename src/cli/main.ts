#!/usr/bin/env node
/**
 * The `flux-operator` command (package.json `bin`, built to dist/src/cli/main.js). It checks the
 * Node version before it loads anything else: the commands' dependencies need a recent Node and on
 * an older one fail at import with a stack trace. So this file imports only node-version.ts, which
 * any Node runs once built, and loads the commands (program.ts) afterwards.
 */
import { nodeVersionProblem } from './node-version.ts';

const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) {
  const { main } = await import('./program.ts');
  process.exitCode = await main(process.argv.slice(2));
} else {
  process.stderr.write(`error: ${problem}\n`);
  process.exitCode = 1;
}
