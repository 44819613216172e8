/**
 * The first steps of a pass, which may stop it before anything is written: the spec (validate), and
 * the host storage or node access it asks for (host-storage).
 */
import { formatProblem } from '../../api/index.ts';
import {
  notYetRenderedProblems,
  toV1alpha2,
  validateMiniCluster,
  type ValidationResult,
} from '../../api/index.ts';
import { miniClusterNames } from '../../render/index.ts';
import { CONTINUE, stop, type StepResult } from '../../runtime/steps.ts';
import { HOST_STORAGE_RECHECK_MS, hostStorageProblem } from './host-storage-check.ts';
import { validOf, type Pass } from './pass.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';

export function validate(pass: Pass): StepResult {
  const { objectKey, live } = pass;
  const fluxViewImage = pass.deps.fluxViewImage;
  const result = pass.memory.memo.validated(objectKey, live, () => validateLive(live, fluxViewImage));
  if (!result.ok) {
    const message = result.problems.slice(0, 5).map(formatProblem).join('; ');
    return stop({ reason: 'InvalidSpec', message });
  }
  pass.miniCluster = result.value;
  pass.names = miniClusterNames(result.value);
  return CONTINUE;
}

/**
 * The MiniCluster in its v1alpha2 form (the conversion's: a v1alpha1 one has Flux in its image, and
 * what a v1alpha2 one said that v1alpha1 cannot comes back from the conversion's annotation),
 * validated and defaulted, with the operator's Flux view image. A field the renderer does not act
 * on yet is refused by its v1alpha2 name, never run without.
 */
export function validateLive(live: LiveMiniCluster, fluxViewImage: string | undefined): ValidationResult {
  const v1alpha2 = toV1alpha2(live);
  const unrendered = notYetRenderedProblems(v1alpha2);
  if (unrendered.length > 0) return { ok: false, problems: unrendered };
  return validateMiniCluster(v1alpha2, fluxViewImage === undefined ? {} : { fluxViewImage });
}

/** Host storage only where the namespace allows it (host-storage-check.ts). */
export async function checkHostStorage(pass: Pass): Promise<StepResult> {
  const { miniCluster } = validOf(pass);
  if (pass.deps.hostStorageNamespaces?.includes(pass.namespace)) return CONTINUE;
  const problem = await hostStorageProblem(miniCluster.spec, pass.namespace, pass.deps.clients.core);
  return problem ? stop(problem, HOST_STORAGE_RECHECK_MS) : CONTINUE;
}
