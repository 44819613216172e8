/**
 * The problems of one pod volume that both versions check alike: its name (a DNS label outside the
 * operator's own names), which sources it sets, and the fields that go with one source only. The
 * rules of each version (../v1alpha1/volume-rules.ts, ../volume-rules.ts) build on them; the CRD's CEL
 * rules for the same checks are in volume-cel.ts.
 */
import { DNS_LABEL_MAX_LENGTH } from './limits.ts';
import { fieldPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { DNS_1123_LABEL_PATTERN } from './schema-helpers.ts';
import { OPERATOR_VOLUME_NAME_PREFIX } from './volume-cel.ts';

const dns1123Label = new RegExp(DNS_1123_LABEL_PATTERN);

/** Which of `sources` the volume sets (emptyDir: only when true); v1alpha2's volumes have more. */
export function volumeSourcesAmong<V extends { emptyDir?: boolean }>(
  sources: readonly (keyof V & string)[],
  volume: V,
): string[] {
  return sources.filter((source) =>
    source === 'emptyDir' ? volume.emptyDir === true : volume[source] !== undefined,
  );
}

/** A pod volume name: a DNS label outside the operator's own names. */
export function volumeNameProblems(path: string, volumeName: string): Problem[] {
  if (volumeName.length > DNS_LABEL_MAX_LENGTH || !dns1123Label.test(volumeName)) {
    return [
      {
        path,
        message: `volume name ${JSON.stringify(volumeName)} must be a DNS label (lowercase letters, digits and "-", at most ${DNS_LABEL_MAX_LENGTH} characters); rename it`,
      },
    ];
  }
  if (volumeName.startsWith(OPERATOR_VOLUME_NAME_PREFIX)) {
    return [
      {
        path,
        message: `volume names starting with ${OPERATOR_VOLUME_NAME_PREFIX} are the operator's own; rename it`,
      },
    ];
  }
  return [];
}

/** The fields of a volume that volumeFieldProblems reads, the same in both versions. */
interface ItemsAndEmptyDir {
  configMapName?: string;
  secretName?: string;
  items?: Readonly<Record<string, string>>;
  emptyDir?: boolean;
  emptyDirMedium?: string;
  emptyDirSizeLimit?: unknown;
}

/** items only with a ConfigMap or Secret, and no empty key; the emptyDir settings only with emptyDir: true. */
export function volumeFieldProblems(path: string, volume: ItemsAndEmptyDir): Problem[] {
  const problems: Problem[] = [];
  if (volume.items !== undefined && volume.configMapName === undefined && volume.secretName === undefined) {
    problems.push({
      path: fieldPath(path, 'items'),
      message: 'applies to configMapName or secretName volumes only; remove items',
    });
  }
  if (Object.keys(volume.items ?? {}).includes('')) {
    problems.push({ path: fieldPath(path, 'items'), message: 'keys must not be empty' });
  }
  if (
    (volume.emptyDirMedium !== undefined || volume.emptyDirSizeLimit !== undefined) &&
    volume.emptyDir !== true
  ) {
    problems.push({
      path,
      message:
        'emptyDirMedium and emptyDirSizeLimit apply to emptyDir: true volumes only; set emptyDir or remove them',
    });
  }
  return problems;
}
