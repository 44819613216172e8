import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import {
  API_VERSION_V1ALPHA1,
  hubModelOf,
  formatProblem,
  validateMiniClusterV1alpha1,
  type DefaultedMiniClusterV1alpha1,
  type Problem,
} from '../api/index.ts';
import {
  API_VERSION,
  validateMiniCluster,
  type DefaultedMiniCluster,
  type DefaultsOptions,
} from '../api/index.ts';
import { MUNGE_KEY_BYTES, parseCurveCertificate } from '../flux/index.ts';
import { generateMiniClusterKeys, renderMiniCluster, type MiniClusterKeys } from '../render/index.ts';
import { InputError } from './input-error.ts';
import { describeDocument, readManifests, type ManifestDocument } from './manifests.ts';

export interface RenderCommandOptions {
  readonly files: readonly string[];
  readonly curveCertFile?: string;
  readonly mungeKeyFile?: string;
  /** The Flux view image of v1alpha2 MiniClusters that name none (the operator's --flux-view-image). */
  readonly fluxViewImage?: string;
}

/** Smallest munge key munged accepts; ours are 1024 bytes, but users may bring their own. */
const MIN_MUNGE_KEY_BYTES = 32;

async function readKeyFile(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new InputError([
      `${flag} ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    ]);
  }
}

async function givenKeys(options: RenderCommandOptions): Promise<Partial<MiniClusterKeys>> {
  const problems: string[] = [];
  const keys: { curveCertificate?: string; mungeKey?: Uint8Array } = {};
  if (options.curveCertFile !== undefined) {
    const text = (await readKeyFile('--curve-cert', options.curveCertFile)).toString('utf8');
    try {
      parseCurveCertificate(text);
      keys.curveCertificate = text;
    } catch (error) {
      problems.push(`--curve-cert ${options.curveCertFile}: ${(error as Error).message}`);
    }
  }
  if (options.mungeKeyFile !== undefined) {
    const key = await readKeyFile('--munge-key', options.mungeKeyFile);
    if (key.length < MIN_MUNGE_KEY_BYTES || key.length > MUNGE_KEY_BYTES * 16) {
      problems.push(
        `--munge-key ${options.mungeKeyFile}: a munge key must hold ${MIN_MUNGE_KEY_BYTES} to ${MUNGE_KEY_BYTES * 16} bytes, this one has ${key.length}`,
      );
    } else keys.mungeKey = key;
  }
  if (problems.length > 0) throw new InputError(problems);
  return keys;
}

/** A MiniCluster of a file, validated and defaulted in the version it is written in. */
export type WrittenMiniCluster = DefaultedMiniCluster | DefaultedMiniClusterV1alpha1;

/**
 * Reads, validates and defaults every MiniCluster in the files, of either served version, each as it
 * is written (a v1alpha1 one stays v1alpha1); all problems at once, or none.
 */
export async function loadWrittenMiniClusters(
  files: readonly string[],
  options: DefaultsOptions = {},
): Promise<WrittenMiniCluster[]> {
  const { documents, problems } = await readManifests(files);
  return validatedMiniClusters(files, documents, problems, options);
}

/** Every MiniCluster in the files, validated in its version, as the hub's model (hubModelOf). */
export async function loadMiniClusters(
  files: readonly string[],
  options: DefaultsOptions = {},
): Promise<DefaultedMiniCluster[]> {
  return (await loadWrittenMiniClusters(files, options)).map(hubModelOf);
}

type Validated = { ok: true; value: WrittenMiniCluster } | { ok: false; problems: Problem[] };

/** A document validated by the rules of the version it names. */
function validateEitherVersion(content: unknown, options: DefaultsOptions): Validated {
  const apiVersion = (content as { apiVersion?: unknown } | null)?.apiVersion;
  if (apiVersion === API_VERSION) return validateMiniCluster(content, options);
  if (apiVersion === API_VERSION_V1ALPHA1) return validateMiniClusterV1alpha1(content);
  return {
    ok: false,
    problems: [
      {
        path: 'apiVersion',
        message: `must be ${API_VERSION} (the current API) or ${API_VERSION_V1ALPHA1}; got ${JSON.stringify(apiVersion ?? null)}`,
      },
    ],
  };
}

/** Validates and defaults every document; throws an InputError with every problem, if any. */
export function validatedMiniClusters(
  files: readonly string[],
  documents: readonly ManifestDocument[],
  readProblems: readonly string[],
  options: DefaultsOptions = {},
): WrittenMiniCluster[] {
  const problems = [...readProblems];
  const perSource = new Map<string, number>();
  for (const document of documents) perSource.set(document.source, (perSource.get(document.source) ?? 0) + 1);
  const miniClusters: WrittenMiniCluster[] = [];
  for (const document of documents) {
    const where = describeDocument(document, perSource.get(document.source) ?? 1);
    const result = validateEitherVersion(document.content, options);
    if (result.ok) miniClusters.push(result.value);
    else problems.push(...result.problems.map((problem) => `${where}: ${formatProblem(problem)}`));
  }
  if (problems.length === 0 && miniClusters.length === 0) {
    problems.push(`${files.join(', ')}: no MiniCluster found (the files hold no YAML documents)`);
  }
  if (problems.length > 0) throw new InputError(problems);
  return miniClusters;
}

/** Multi-document YAML of every object of every MiniCluster in the files. */
export async function renderFiles(options: RenderCommandOptions, now = new Date()): Promise<string> {
  const miniClusters = await loadMiniClusters(
    options.files,
    options.fluxViewImage === undefined ? {} : { fluxViewImage: options.fluxViewImage },
  );
  const given = await givenKeys(options);
  return renderToYaml(miniClusters, given, now);
}

/** Every object of the MiniClusters as multi-document YAML; keys not given are generated per MiniCluster. */
export function renderToYaml(
  miniClusters: readonly DefaultedMiniCluster[],
  given: Partial<MiniClusterKeys>,
  now = new Date(),
): string {
  const documents = miniClusters.flatMap((miniCluster) => {
    const needsNewKeys =
      given.curveCertificate === undefined || given.mungeKey === undefined || given.restfulSeed === undefined;
    const generated = needsNewKeys ? generateMiniClusterKeys(miniCluster.metadata.name, now) : undefined;
    let keys: MiniClusterKeys = {
      curveCertificate: given.curveCertificate ?? (generated as MiniClusterKeys).curveCertificate,
      mungeKey: given.mungeKey ?? (generated as MiniClusterKeys).mungeKey,
    };
    const restfulSeed = given.restfulSeed ?? generated?.restfulSeed;
    if (restfulSeed !== undefined) keys = { ...keys, restfulSeed };
    return renderMiniCluster(miniCluster, keys);
  });
  return documents.map((object) => `---\n${stringify(object, { lineWidth: 0 })}`).join('');
}
