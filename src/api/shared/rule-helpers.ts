/**
 * The checks several rules make (host name lengths, duplicates), each with the CEL expression the
 * CRD uses for the same check. What a rule is and reads is in semantic-rule.ts.
 */
import { DNS_LABEL_MAX_LENGTH } from './limits.ts';
import type { Problem } from './problems.ts';

/** Longest name such that `<name>-<lastIndex>` is still a DNS label. */
function longestPrefixFor(count: number): number {
  return DNS_LABEL_MAX_LENGTH - 1 - String(count - 1).length;
}

/** Problem if host names `<prefix>-0` ... `<prefix>-(count-1)` would not be DNS labels. */
export function hostNameLengthProblems(path: string, prefix: string, count: number, what: string): Problem[] {
  const limit = longestPrefixFor(count);
  if (prefix.length <= limit) return [];
  return [
    {
      path,
      message: `must have at most ${limit} characters (got ${prefix.length}) so that host names up to ${prefix}-${count - 1} stay within ${DNS_LABEL_MAX_LENGTH}; shorten ${what}`,
    },
  ];
}

/** CEL: host names `<prefix>-0` ... `<prefix>-(count-1)` are DNS labels (the same bound). */
export function celHostNamesFit(prefix: string, count: string): string {
  return `${prefix}.size() + 1 + string(${count} - 1).size() <= ${DNS_LABEL_MAX_LENGTH}`;
}

/** Indexes of list entries equal to an earlier entry (by `key`). */
export function duplicates<T>(
  items: readonly T[],
  key: (item: T) => unknown,
): { index: number; firstIndex: number }[] {
  const firstIndexByKey = new Map<unknown, number>();
  const found: { index: number; firstIndex: number }[] = [];
  items.forEach((item, index) => {
    const itemKey = key(item);
    const firstIndex = firstIndexByKey.get(itemKey);
    if (firstIndex === undefined) firstIndexByKey.set(itemKey, index);
    else found.push({ index, firstIndex });
  });
  return found;
}

/** Which container runs Flux, as CEL sees a container (`container`) of the spec (`spec`). */
export function celRunsFlux(spec: string, container: string): string {
  return `(${spec}.containers.size() == 1 || (has(${container}.runFlux) && ${container}.runFlux))`;
}
