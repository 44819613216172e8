// Small layers over a Debian base, written the way a Dockerfile's RUN would leave them: a folder owned
// by a user of the image, a user added as `useradd -m -U` adds one. Pure: they read the base's /etc
// files (BaseEtc) and return tar entries.
import type { BaseEtc, BaseFile } from './debian-rootfs.ts';
import { BASE_ETC_FILES } from './debian-rootfs.ts';
import { archivePath } from './tar-writer.ts';
import type { TarEntry } from './tar-writer.ts';

/** A customisation applied as a small layer over a base. */
export type VariantStep =
  /** A folder owned by a user of the image (e.g. /run/munge, which systemd would otherwise make). */
  | { kind: 'owned-dir'; path: string; owner: string; mode: number }
  /**
   * A user with its own group (gid = uid) and home made from /etc/skel, as `useradd -m -U` makes it;
   * the home is 0750 (Ubuntu's HOME_MODE) unless `homeMode` says otherwise (Debian's umask gives 0755).
   */
  | {
      kind: 'user';
      name: string;
      uid: number;
      comment: string;
      home: string;
      shell: string;
      homeMode?: number;
    };

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

function parsePasswd(text: string): PasswdEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [name = '', , uid = '', gid = ''] = l.split(':');
      return { name, uid: Number(uid), gid: Number(gid) };
    });
}

function parseGroup(text: string): { name: string; gid: number }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [name = '', , gid = ''] = l.split(':');
      return { name, gid: Number(gid) };
    });
}

function appendLine(file: BaseFile, line: string): BaseFile {
  const text = file.data.toString('utf8');
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  return { ...file, data: Buffer.from(`${text}${sep}${line}\n`) };
}

function parentDirs(p: string): string[] {
  const parts = p.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Sorts tar entries by path, so that a folder comes before what it holds. */
export function byPath(a: TarEntry, b: TarEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The entries of a layer over a base whose /etc files are `base`: pure. Parent folders are written as
 * Debian has them (0755, root); entries come out in path order.
 */
export function variantLayerEntries(steps: readonly VariantStep[], base: BaseEtc): TarEntry[] {
  const entries = new Map<string, TarEntry>();
  const etc = { ...base };
  const etcChanged = new Set<(typeof BASE_ETC_FILES)[number]>();
  const addDirWithParents = (entry: TarEntry): void => {
    for (const parent of parentDirs(entry.path)) {
      if (!entries.has(parent)) entries.set(parent, { type: 'directory', path: parent, mode: 0o755 });
    }
    entries.set(entry.path, entry);
  };
  for (const step of steps) {
    if (step.kind === 'owned-dir') {
      const owner = parsePasswd(etc.passwd.data.toString('utf8')).find((u) => u.name === step.owner);
      if (owner === undefined) throw new Error(`${step.path}: the image has no user ${step.owner}`);
      addDirWithParents({
        type: 'directory',
        path: archivePath(step.path),
        mode: step.mode,
        uid: owner.uid,
        gid: owner.gid,
      });
    } else {
      const users = parsePasswd(etc.passwd.data.toString('utf8'));
      const groups = parseGroup(etc.group.data.toString('utf8'));
      const clash =
        users.find((u) => u.uid === step.uid || u.name === step.name) ??
        groups.find((g) => g.gid === step.uid || g.name === step.name);
      if (clash !== undefined) {
        throw new Error(`cannot add user ${step.name} (uid ${step.uid}): ${clash.name} is already there`);
      }
      const { name, uid } = step;
      etc.passwd = appendLine(
        etc.passwd,
        `${name}:x:${uid}:${uid}:${step.comment}:${step.home}:${step.shell}`,
      );
      etc.group = appendLine(etc.group, `${name}:x:${uid}:`);
      // Locked password, no ageing (an empty last-change field), as for an image's default user.
      etc.shadow = appendLine(etc.shadow, `${name}:!::0:99999:7:::`);
      etc.gshadow = appendLine(etc.gshadow, `${name}:!::`);
      for (const f of BASE_ETC_FILES) etcChanged.add(f);
      const home = archivePath(step.home);
      addDirWithParents({ type: 'directory', path: home, mode: step.homeMode ?? 0o750, uid, gid: uid });
      for (const [file, content] of Object.entries(base.skel)) {
        entries.set(`${home}/${file}`, {
          type: 'file',
          path: `${home}/${file}`,
          mode: content.mode,
          uid,
          gid: uid,
          data: content.data,
        });
      }
    }
  }
  for (const f of etcChanged) {
    const { data, mode, uid, gid } = etc[f];
    addDirWithParents({ type: 'file', path: `etc/${f}`, data, mode, uid, gid });
  }
  return [...entries.values()].sort(byPath);
}

export function describeStep(step: VariantStep): string {
  return step.kind === 'owned-dir'
    ? `mkdir ${step.path} owned by ${step.owner} (mode ${step.mode.toString(8)})`
    : `useradd -m -U -u ${step.uid} -s ${step.shell} ${step.name}`;
}
