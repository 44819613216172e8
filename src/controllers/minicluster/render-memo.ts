/**
 * What each MiniCluster's spec validated and rendered to, kept from one pass to the next. A pass runs
 * at every folded pod or child event, and nearly all of them see the spec and keys of the pass
 * before: validating, defaulting and rendering again (the entrypoint script, broker.toml, the Job)
 * was a third of the operator's own CPU per MiniCluster (docs/performance.md).
 *
 * An entry holds while the MiniCluster's uid, generation (which moves with every spec change) and
 * status.maximumSize (read by a validation rule) stay the same; the rendered objects while the keys
 * do too. Only valid specs are kept: a refused one is validated again at every pass, so its message
 * always says what the spec says now. Entries are few and bounded (the most recently used), since a
 * MiniCluster at rest has no passes to speed up.
 */
import { API_VERSION, type ValidationResult } from '../../api/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import type { KubeObject, MiniClusterKeys } from '../../render/index.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';

/** How many MiniClusters' renders are kept: enough for every MiniCluster that is starting at once. */
export const RENDER_MEMO_CAPACITY = 256;

interface Entry {
  readonly fingerprint: string;
  readonly spec: DefaultedMiniCluster['spec'];
  keys?: MiniClusterKeys;
  objects?: readonly KubeObject[];
  /** For each rendered object (kind/name), the live resourceVersion already found to contain it. */
  readonly matched: Map<string, string>;
}

function fingerprintOf(live: LiveMiniCluster): string | undefined {
  const { uid, generation } = live.metadata as { uid?: string; generation?: number };
  if (uid === undefined || generation === undefined) return undefined;
  return `${uid}/${generation}/${live.status?.maximumSize ?? ''}`;
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

export function sameKeys(a: MiniClusterKeys, b: MiniClusterKeys): boolean {
  return (
    a.curveCertificate === b.curveCertificate &&
    sameBytes(a.mungeKey, b.mungeKey) &&
    sameBytes(a.restfulSeed, b.restfulSeed)
  );
}

export class RenderMemo {
  private readonly entries = new Map<string, Entry>();
  private readonly capacity: number;

  constructor(capacity = RENDER_MEMO_CAPACITY) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  /** validate(live)'s answer, from the last pass when its spec and maximumSize are the same. */
  validated(key: string, live: LiveMiniCluster, validate: () => ValidationResult): ValidationResult {
    const fingerprint = fingerprintOf(live);
    const entry = this.entries.get(key);
    if (fingerprint !== undefined && entry?.fingerprint === fingerprint) {
      this.touch(key, entry);
      // Metadata and status as they are now; only the spec (its v1alpha2 form) is the one validated before.
      const value = { ...live, apiVersion: API_VERSION, spec: entry.spec } as DefaultedMiniCluster;
      return { ok: true, value };
    }
    const result = validate();
    if (result.ok && fingerprint !== undefined) {
      this.touch(key, { fingerprint, spec: result.value.spec, matched: new Map() });
    } else {
      this.entries.delete(key);
    }
    return result;
  }

  /** render()'s objects, from the last pass when the spec (see validated) and the keys are the same. */
  rendered(key: string, keys: MiniClusterKeys, render: () => KubeObject[]): readonly KubeObject[] {
    const entry = this.entries.get(key);
    if (!entry) return render();
    if (entry.objects && entry.keys && sameKeys(entry.keys, keys)) return entry.objects;
    entry.objects = render();
    entry.keys = keys;
    entry.matched.clear();
    return entry.objects;
  }

  /**
   * contains(desired, live), remembered per live resourceVersion: an object the API server has not
   * changed since it last contained what the same render asks for still does.
   */
  contains(
    key: string,
    desired: KubeObject,
    live: KubeObject | undefined,
    contains: (desired: KubeObject, live: KubeObject) => boolean,
  ): boolean {
    if (!live) return false;
    const entry = this.entries.get(key);
    const version = live.metadata.resourceVersion;
    const id = `${desired.kind}/${desired.metadata.name}`;
    const remembered = entry?.objects?.includes(desired) === true && version !== undefined;
    if (remembered && entry.matched.get(id) === version) return true;
    const answer = contains(desired, live);
    if (remembered) {
      if (answer) entry.matched.set(id, version);
      else entry.matched.delete(id);
    }
    return answer;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private touch(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
