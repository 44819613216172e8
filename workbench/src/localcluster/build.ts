// Builds (once) the control-plane binaries with hack/build-control-plane.sh into the versioned cache.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { readVersions } from '../tooling/project.ts';
import { BINARIES, binDir } from './paths.ts';

export const stderrProgress: Progress = (line) => process.stderr.write(`[localcluster] ${line}\n`);

export function missingBinaries(dir: string): string[] {
  return BINARIES.filter((b) => {
    try {
      accessSync(path.join(dir, b), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

export interface EnsureBuiltOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/**
 * Returns the folder with kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd, kwok and
 * kwokctl, building them from Go modules first when the cache lacks any (needs Go; 15-25 minutes on 2 cores).
 */
export async function ensureBuilt(options: EnsureBuiltOptions = {}): Promise<string> {
  const progress = options.progress ?? stderrProgress;
  const env = options.env ?? process.env;
  const versions = readVersions();
  const dir = binDir(versions, env);
  const missing = missingBinaries(dir);
  if (missing.length === 0) return dir;

  progress(
    `building the control plane (Kubernetes ${versions.kubernetes}, etcd ${versions.etcd}, kwok ${versions.kwok}) ` +
      `from Go modules into ${dir}; missing: ${missing.join(', ')}. ` +
      'This is done once per version and takes 15-25 minutes on 2 cores.',
  );
  const started = Date.now();
  const out = await runHackScript('build-control-plane.sh', [], { progress, env });
  const built = out || dir;
  const stillMissing = missingBinaries(built);
  if (stillMissing.length > 0) {
    throw new Error(`the build finished but ${built} lacks ${stillMissing.join(', ')}`);
  }
  progress(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return built;
}
