import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { yamlErrorMessage } from './yaml-problems.ts';

/** One YAML document of a manifest file, with where it came from for error messages. */
export interface ManifestDocument {
  readonly source: string;
  readonly index: number;
  readonly content: unknown;
}

export interface ManifestReadResult {
  readonly documents: ManifestDocument[];
  readonly problems: string[];
}

/** Reads every document of every file; empty documents (a trailing `---`) are skipped. */
export async function readManifests(files: readonly string[]): Promise<ManifestReadResult> {
  const documents: ManifestDocument[] = [];
  const problems: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      problems.push(
        `${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
      continue;
    }
    parseManifestText(file, text, documents, problems);
  }
  return { documents, problems };
}

export function parseManifestText(
  source: string,
  text: string,
  documents: ManifestDocument[],
  problems: string[],
): void {
  parseAllDocuments(text, { prettyErrors: true }).forEach((document, index) => {
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        const where = error.linePos ? `:${error.linePos[0].line}:${error.linePos[0].col}` : '';
        problems.push(`${source}${where}: invalid YAML: ${yamlErrorMessage(text, error)}`);
      }
      return;
    }
    const content: unknown = document.toJS();
    if (content === null || content === undefined) return;
    documents.push({ source, index, content });
  });
}

/** `file` for a one-document file, `file (document 2)` otherwise, counting from 1. */
export function describeDocument(document: ManifestDocument, totalInSource: number): string {
  return totalInSource > 1 ? `${document.source} (document ${document.index + 1})` : document.source;
}
