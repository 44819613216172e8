/**
 * The oldest Node.js the CLI and the operator run on. @kubernetes/client-node 2.x needs undici 8,
 * which needs Node >= 22.19: on an older Node a command dies inside undici with a stack trace.
 * package.json's `engines` and hack/node.sh say the same (a unit test checks that they agree).
 *
 * No imports and nothing a type-stripping-free Node could not run once compiled: main.ts loads this
 * file before anything else, on whatever Node the user has.
 */
export const MINIMUM_NODE_VERSION = '22.19.0';

function versionParts(version: string): number[] {
  return version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10));
}

/** `version` (`22.19.0` or `v22.19.0`) is `minimum` or newer. */
export function isAtLeast(version: string, minimum: string): boolean {
  const have = versionParts(version);
  const need = versionParts(minimum);
  for (let index = 0; index < need.length; index++) {
    const a = have[index] ?? 0;
    const b = need[index] ?? 0;
    if (Number.isNaN(a) || a < b) return false;
    if (a > b) return true;
  }
  return true;
}

/** One line saying what the CLI needs when `version` is too old; undefined when it will do. */
export function nodeVersionProblem(version: string): string | undefined {
  if (isAtLeast(version, MINIMUM_NODE_VERSION)) return undefined;
  return `flux-operator needs Node.js >= ${MINIMUM_NODE_VERSION}, this is ${version}; in a clone of the project, \`bash hack/node.sh <command>\` installs one and runs the command with it`;
}
