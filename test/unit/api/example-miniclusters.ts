/** The MiniClusters of this project's examples/ and of the Go operator's v1alpha2 examples, each named by its file. */
import { readFileSync, readdirSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { goV1alpha2ExampleManifests } from '../../harness/go-v1alpha2-examples.ts';

export type Named = { what: string; object: Record<string, unknown> };

/** The MiniClusters of a manifest's documents. */
export function miniClustersIn(what: string, text: string): Named[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as Record<string, unknown> | null)
    .filter((object): object is Record<string, unknown> => object?.kind === 'MiniCluster')
    .map((object) => ({ what, object }));
}

/** The MiniClusters of examples/*.yaml (written in the current API, v1alpha2). */
export function ownExampleMiniClusters(): Named[] {
  return readdirSync('examples')
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => miniClustersIn(`examples/${file}`, readFileSync(`examples/${file}`, 'utf8')));
}

/** The MiniClusters of the Go operator's v1alpha2 examples/ (its e2e suite included), from the archive. */
export async function goV1alpha2ExampleMiniClusters(): Promise<Named[]> {
  return (await goV1alpha2ExampleManifests()).flatMap((manifest) =>
    miniClustersIn(`go v1alpha2 ${manifest.path}`, manifest.text),
  );
}
