/**
 * YAML parse errors as messages that say what to fix. The yaml library points at a duplicated key
 * by its first character only; the message here names the key, where it is in the document and
 * where it was first set, since which of the two values a reader wanted is for the author to say.
 */
import { isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Node, YAMLError } from 'yaml';

interface KeyAt {
  readonly key: string;
  readonly path: string;
  readonly firstOffset: number;
}

/** The duplicated key starting at `offset` in `text`: its name, field path and first occurrence. */
function duplicateKeyAt(text: string, offset: number): KeyAt | undefined {
  const visit = (node: unknown, path: string): KeyAt | undefined => {
    if (isMap(node)) {
      const firstOffsets = new Map<string, number>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const start = (pair.key as Node | null)?.range?.[0];
        const childPath = path === '' ? key : `${path}.${key}`;
        const first = firstOffsets.get(key);
        if (start === offset && first !== undefined) return { key, path: childPath, firstOffset: first };
        if (first === undefined && start !== undefined) firstOffsets.set(key, start);
        const found = visit(pair.value, childPath);
        if (found) return found;
      }
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) {
        const found = visit(item, `${path}[${index}]`);
        if (found) return found;
      }
    }
    return undefined;
  };
  const documents = parseAllDocuments(text, { uniqueKeys: false });
  for (const document of Array.isArray(documents) ? documents : [documents]) {
    const found = visit(document.contents, '');
    if (found) return found;
  }
  return undefined;
}

/** 1-based line of an offset. */
function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** A one-line description of a YAML error in `text`, the whole text the error's offsets count in. */
export function yamlErrorMessage(text: string, error: YAMLError): string {
  const [offset] = error.pos;
  const duplicate = error.code === 'DUPLICATE_KEY' ? duplicateKeyAt(text, offset) : undefined;
  if (duplicate) {
    return `the key "${duplicate.key}" is set twice (${duplicate.path}, first at line ${lineOf(text, duplicate.firstOffset)}); keep one of them`;
  }
  return error.message.split('\n')[0] ?? error.message;
}
