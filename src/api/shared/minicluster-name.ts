/** The name of a MiniCluster, which its pods' host names and its Service derive from (both versions). */
import type { Problem } from './problems.ts';
import { hostNameLengthProblems } from './rule-helpers.ts';
import { DNS_1035_LABEL_PATTERN } from './schema-helpers.ts';

const dns1035Label = new RegExp(DNS_1035_LABEL_PATTERN);

/**
 * What is wrong with `name` as the name of a MiniCluster of up to `maxSize` brokers; `path` says
 * where the name came from (`flux-operator keygen --name` checks its flag with the same rule).
 */
export function miniClusterNameProblems(name: string, maxSize: number, path = 'metadata.name'): Problem[] {
  if (!dns1035Label.test(name)) {
    return [
      {
        path,
        message: `must be a DNS label (lowercase letters, digits and "-", starting with a letter, ending with a letter or digit), since pod host names and the Service derive from it; got ${JSON.stringify(name)}`,
      },
    ];
  }
  return hostNameLengthProblems(path, name, maxSize, 'the name');
}
