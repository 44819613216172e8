/**
 * v1alpha2 volumes, as the validator checks them (the CEL twins are volume-schema.ts and
 * volume-cel.ts): one source or none, a path (but for an emptyDir), DNS label names, unique mount
 * paths in a container (an emptyDir without a path is at /dev/shm), one source per pod volume name,
 * no source of its own under a spec.volumes name, and the Flux container's paths kept off the
 * operator's own and the view's.
 */
import { fieldPath, indexPath } from './shared/problems.ts';
import type { Problem } from './shared/problems.ts';
import { duplicates } from './shared/rule-helpers.ts';
import { OPERATOR_MOUNT_PATHS } from './shared/volume-cel.ts';
import { volumeFieldProblems, volumeNameProblems, volumeSourcesAmong } from './shared/volume-problems.ts';
import type { DefaultedContainerVolume, DefaultedMiniClusterSpec } from './schema.ts';
import { DEFAULT_EMPTY_DIR_PATH } from './go-defaults.ts';
import { OPERATOR_PATH_MESSAGE, PATHS_MESSAGE, agreementMessage } from './volume-cel.ts';
import { V1ALPHA2_SOURCES } from './volume-schema.ts';

type Volume = DefaultedContainerVolume;
type VolumeMap = Readonly<Record<string, Volume>> | undefined;

const SOURCES = ['configMapName', 'secretName', 'claimName', 'hostPath', 'csiDriver', 'emptyDir'] as const;

export function volumeSources(volume: Volume): string[] {
  return volumeSourcesAmong(SOURCES, volume);
}

/** Where the volume is mounted: its path, or /dev/shm for an emptyDir without one. */
export function volumeMountPath(volume: Pick<Volume, 'path'>): string {
  return volume.path ?? DEFAULT_EMPTY_DIR_PATH;
}

/** What makes two mounts of one pod volume the same volume, as written (the CEL compares the same). */
function sourceKey(volume: Volume): string {
  const sorted = (map: Readonly<Record<string, string>> | undefined) =>
    map === undefined ? undefined : Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([
    volume.configMapName,
    volume.secretName,
    volume.claimName,
    volume.hostPath,
    volume.emptyDirMedium,
    volume.csiDriver,
    volume.emptyDir === true,
    volume.emptyDirSizeLimit,
    sorted(volume.items),
    sorted(volume.csiDriverAttributes),
  ]);
}

function entryProblems(path: string, name: string, volume: Volume): Problem[] {
  const problems = volumeNameProblems(path, name);
  const sources = volumeSources(volume);
  if (sources.length > 1) {
    problems.push({
      path,
      message: `has several sources (${sources.join(', ')}); keep one of ${V1ALPHA2_SOURCES}`,
    });
  }
  problems.push(...volumeFieldProblems(path, volume));
  if (volume.csiDriverAttributes !== undefined && volume.csiDriver === undefined) {
    problems.push({
      path: fieldPath(path, 'csiDriverAttributes'),
      message: 'applies to csiDriver volumes only; set csiDriver or remove them',
    });
  }
  if (volume.path === undefined && !volume.emptyDir) {
    problems.push({
      path: fieldPath(path, 'path'),
      message: `is required: where the volume is mounted in the container (only an emptyDir may leave it out, for ${DEFAULT_EMPTY_DIR_PATH})`,
    });
  }
  return problems;
}

interface Mounter {
  path: string;
  volumes: VolumeMap;
  runsFlux: boolean;
}

function mounters(list: 'containers' | 'services', spec: DefaultedMiniClusterSpec): Mounter[] {
  return list === 'containers'
    ? spec.containers.map((container, index) => ({
        path: `spec.containers[${index}]`,
        volumes: container.volumes,
        runsFlux: container.runFlux,
      }))
    : (spec.services ?? []).map((service, index) => ({
        path: `spec.services[${index}]`,
        volumes: service.volumes as VolumeMap,
        runsFlux: false,
      }));
}

function listProblems(
  list: 'containers' | 'services',
  spec: DefaultedMiniClusterSpec,
  viewMountPath: string,
): Problem[] {
  const problems: Problem[] = [];
  const firstDefinition = new Map<string, { path: string; key: string }>();
  const storage = spec.volumes ?? {};
  for (const mounter of mounters(list, spec)) {
    const mounts = Object.entries(mounter.volumes ?? {}).map(([name, volume]) => ({
      name,
      volume,
      path: indexPath(`${mounter.path}.volumes`, name),
    }));
    for (const { name, volume, path } of mounts) {
      problems.push(...entryProblems(path, name, volume));
      if (volumeSources(volume).length > 0 && Object.hasOwn(storage, name)) {
        problems.push({
          path,
          message: `has a source of its own and the name of spec.volumes[${name}]; a pod volume name means one volume: rename one of them, or remove the source to mount spec.volumes[${name}]`,
        });
      }
      const key = sourceKey(volume);
      const first = firstDefinition.get(name);
      if (first === undefined) firstDefinition.set(name, { path, key });
      else if (first.key !== key) {
        problems.push({ path, message: `${agreementMessage(list)} (${first.path})` });
      }
      if (mounter.runsFlux) {
        const mountPath = volumeMountPath(volume);
        if (OPERATOR_MOUNT_PATHS.includes(mountPath) || mountPath === viewMountPath) {
          problems.push({
            path: fieldPath(path, 'path'),
            message: `is ${mountPath}: ${OPERATOR_PATH_MESSAGE}`,
          });
        }
      }
    }
    for (const { index, firstIndex } of duplicates(mounts, (mount) => volumeMountPath(mount.volume))) {
      problems.push({
        path: fieldPath(mounts[index]?.path ?? mounter.path, 'path'),
        message: `is also the mount path of ${mounts[firstIndex]?.path}: ${PATHS_MESSAGE}`,
      });
    }
  }
  return problems;
}

export function volumeProblems(spec: DefaultedMiniClusterSpec): Problem[] {
  const viewMountPath = spec.flux.container.mountPath;
  return [
    ...listProblems('containers', spec, viewMountPath),
    ...listProblems('services', spec, viewMountPath),
  ];
}
