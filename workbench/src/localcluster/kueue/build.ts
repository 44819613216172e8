// Builds (once per version) Kueue's manager from its Go module into the cache beside the control plane.
import { accessSync, constants, mkdirSync, renameSync, rmSync } from 'node:fs';
import { runCommand } from '../../tooling/command.ts';
import type { Progress } from '../../tooling/hack-script.ts';
import { duration } from '../first-run.ts';
import { withLock } from '../lock.ts';
import { KUEUE_PACKAGE, KUEUE_VERSION, goCommand, kueueBinDir, kueueBinary } from './paths.ts';

/**
 * A build from an empty Go build cache on 2 cores with other work running (468 s, docs/kueue.md); said
 * before the build so that nobody thinks it hangs.
 */
export const KUEUE_BUILD_SECONDS = 480;
/** A second process waits this long for another's build of the same version before giving up. */
const BUILD_WAIT_MS = 40 * 60_000;

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether the cache holds the binary of the pinned version. */
export function kueueBuilt(env: NodeJS.ProcessEnv = process.env): boolean {
  return executable(kueueBinary(env));
}

/** `go install` of Kueue's own main package at the pinned version, as its Makefile stamps the version. */
export function goInstallArgs(): string[] {
  return [
    'install',
    '-trimpath',
    '-ldflags',
    `-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=${KUEUE_VERSION}`,
    `${KUEUE_PACKAGE}@${KUEUE_VERSION}`,
  ];
}

/**
 * Returns the path of the kueue binary, building it first from the Go module proxy when the cache lacks
 * it. Two processes never build it at once: the second waits, then finds it built.
 */
export async function ensureKueueBuilt(progress: Progress, env: NodeJS.ProcessEnv = process.env) {
  const binary = kueueBinary(env);
  if (kueueBuilt(env)) return binary;
  const dir = kueueBinDir(env);
  return withLock(
    `${dir}.lock`,
    progress,
    `building Kueue ${KUEUE_VERSION}`,
    async () => {
      if (kueueBuilt(env)) return binary;
      const partial = `${dir}.partial`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      progress(
        `building Kueue ${KUEUE_VERSION} (${KUEUE_PACKAGE}) from the Go module proxy into ${dir}: ` +
          `done once per version, ${duration(KUEUE_BUILD_SECONDS)} on 2 cores`,
      );
      const started = Date.now();
      const minutes = () => Math.round((Date.now() - started) / 60_000);
      const reminder = setInterval(() => progress(`still building Kueue (${minutes()} min so far)`), 120_000);
      try {
        await runCommand(goCommand(env), goInstallArgs(), {
          // GOTOOLCHAIN=auto (as for the control plane) fetches through the proxy a newer Go than the
          // installed one when the module needs it; GOTOOLCHAIN=local forbids that.
          env: { ...env, GOBIN: partial, CGO_ENABLED: '0', GOTOOLCHAIN: env.GOTOOLCHAIN ?? 'auto' },
        });
      } finally {
        clearInterval(reminder);
      }
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
      progress(`built Kueue in ${Math.round((Date.now() - started) / 1000)} s`);
      return binary;
    },
    BUILD_WAIT_MS,
  );
}
