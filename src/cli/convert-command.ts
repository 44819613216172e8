/**
 * `flux-operator convert -f old.yaml`: a v1alpha1 manifest (one document or many) as v1alpha2, for
 * users moving to the current API. Each MiniCluster is checked in its own version first, so a
 * problem is named in the words of the file; other documents pass through as they are, as do
 * MiniClusters that are v1alpha2 already. Problems name the document and the field; nothing is
 * printed then.
 */
import { Document } from 'yaml';
import { API_VERSION_V1ALPHA1, KIND, formatProblem, validateMiniClusterV1alpha1 } from '../api/index.ts';
import { API_VERSION, V1ALPHA1_RESIDUE_ANNOTATION, toV1alpha2, validateMiniCluster } from '../api/index.ts';
import { InputError } from './input-error.ts';
import { describeDocument, readManifests } from './manifests.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The converted object without the conversion's own annotation: a manifest to keep, not to round-trip. */
function forKeeping(converted: Record<string, unknown>): Record<string, unknown> {
  const metadata = isObject(converted.metadata) ? converted.metadata : {};
  const { [V1ALPHA1_RESIDUE_ANNOTATION]: _residue, ...annotations } = isObject(metadata.annotations)
    ? metadata.annotations
    : {};
  const { annotations: _annotations, ...rest } = metadata;
  return {
    ...converted,
    metadata: Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest,
  };
}

function fieldOf(object: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), object);
}

/** What the reader of the converted manifest should know, as comments above it. */
function notes(where: string, original: Record<string, unknown>, converted: Record<string, unknown>): string {
  const lines = [` Converted from ${API_VERSION_V1ALPHA1} (${where}) by flux-operator convert.`];
  if (fieldOf(converted, 'spec', 'flux', 'container', 'disable') === true) {
    lines.push(
      ' flux.container.disable: true keeps Flux from the image, as v1alpha1 did; remove it to run Flux',
      ' from the Flux view instead (then the image needs no Flux).',
    );
  }
  if (fieldOf(original, 'spec', 'logging', 'strict') === undefined) {
    lines.push(" logging.strict: true is v1alpha1's default, written out (v1alpha2's is false).");
  }
  if (
    fieldOf(original, 'spec', 'fluxRestful') === undefined &&
    fieldOf(converted, 'spec', 'fluxRestful') !== undefined
  ) {
    lines.push(
      ' fluxRestful: {} says what v1alpha1 implied without a command: the lead pod serves the RESTful API.',
    );
  }
  if (
    fieldOf(original, 'spec', 'network', 'disableAffinity') === undefined &&
    fieldOf(converted, 'spec', 'network', 'disableAffinity') === true
  ) {
    lines.push(' network.disableAffinity: true keeps the brokers without pod affinity, as v1alpha1 did.');
  }
  const containers = fieldOf(converted, 'spec', 'containers');
  if (
    Array.isArray(containers) &&
    containers.some((container) => fieldOf(container, 'noWrapEntrypoint') === true)
  ) {
    lines.push(' noWrapEntrypoint: true runs the containers beside Flux as they are, as v1alpha1 did.');
  }
  return lines.join('\n');
}

function documentText(content: unknown, comment?: string): string {
  const document = new Document(content);
  if (comment !== undefined) document.commentBefore = comment;
  return `---\n${document.toString({ lineWidth: 0 })}`;
}

/** Every document of the files, its MiniClusters as v1alpha2; throws an InputError with every problem. */
export async function convertFiles(files: readonly string[]): Promise<string> {
  const { documents, problems } = await readManifests(files);
  const perSource = new Map<string, number>();
  for (const document of documents) perSource.set(document.source, (perSource.get(document.source) ?? 0) + 1);
  const output: string[] = [];
  let miniClusters = 0;
  for (const document of documents) {
    const where = describeDocument(document, perSource.get(document.source) ?? 1);
    const content = document.content;
    if (!isObject(content) || content.kind !== KIND) {
      output.push(documentText(content));
      continue;
    }
    miniClusters += 1;
    if (content.apiVersion === API_VERSION) {
      const result = validateMiniCluster(content);
      if (result.ok) output.push(documentText(content));
      else problems.push(...result.problems.map((problem) => `${where}: ${formatProblem(problem)}`));
      continue;
    }
    if (content.apiVersion !== API_VERSION_V1ALPHA1) {
      problems.push(
        `${where}: apiVersion: must be ${API_VERSION_V1ALPHA1} (or ${API_VERSION}, printed as it is); got ${JSON.stringify(content.apiVersion)}`,
      );
      continue;
    }
    const given = validateMiniClusterV1alpha1(content);
    if (!given.ok) {
      problems.push(...given.problems.map((problem) => `${where}: ${formatProblem(problem)}`));
      continue;
    }
    const converted = forKeeping(toV1alpha2(content));
    // A valid v1alpha1 MiniCluster always is a valid v1alpha2 one; should one not be, say where.
    const result = validateMiniCluster(converted);
    if (!result.ok) {
      problems.push(
        ...result.problems.map((problem) => `${where}: as ${API_VERSION}: ${formatProblem(problem)}`),
      );
      continue;
    }
    output.push(documentText(converted, notes(where, content, converted)));
  }
  if (problems.length === 0 && miniClusters === 0) {
    problems.push(`${files.join(', ')}: no MiniCluster found`);
  }
  if (problems.length > 0) throw new InputError(problems);
  return output.join('');
}
