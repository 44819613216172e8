// The flags of `npm run bench -- --against-go`.
import { validateName } from '../../workbench/src/localcluster/paths.ts';

export type OperatorName = 'ours' | 'go';

export interface AgainstGoOptions {
  count: number;
  size: number;
  steadySeconds: number;
  /** Which operator runs first (both run on the same cluster, one after the other). */
  order: [OperatorName, OperatorName];
  /** Keep the Go operator's default pod affinity (see TranslateOptions). */
  goAffinity: boolean;
  /** The named local cluster the bench runs on (never the shared default one). */
  cluster: string;
  /** Leave that cluster running afterwards (a later run reuses it). */
  keepCluster: boolean;
}

export const AGAINST_GO_USAGE =
  'npm run bench -- --against-go [--count N (50)] [--size N (8)] [--steady-seconds N (30)] [--go-first] ' +
  '[--go-affinity] [--cluster NAME (bench)] [--keep-cluster]';

const NUMBERS = { '--count': 'count', '--size': 'size', '--steady-seconds': 'steadySeconds' } as const;
const SWITCHES = ['--against-go', '--go-first', '--go-affinity', '--keep-cluster'];

function isNumberFlag(flag: string): flag is keyof typeof NUMBERS {
  return Object.hasOwn(NUMBERS, flag);
}

/** Parses the flags; throws naming the flag and what it takes when one is unknown or has a bad value. */
export function parseAgainstGoOptions(argv: readonly string[]): AgainstGoOptions {
  const numbers = { count: 50, size: 8, steadySeconds: 30 };
  let cluster = 'bench';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (SWITCHES.includes(flag)) continue;
    const value = argv[i + 1];
    if (isNumberFlag(flag)) {
      const number = Number(value);
      const least = flag === '--steady-seconds' ? 0 : 1;
      if (value === undefined || value.trim() === '' || !Number.isInteger(number) || number < least) {
        throw new Error(
          `${flag} takes a whole number of at least ${least}, not ${JSON.stringify(value ?? '')}`,
        );
      }
      numbers[NUMBERS[flag]] = number;
      i++;
    } else if (flag === '--cluster') {
      if (value === undefined) throw new Error('--cluster takes a cluster name');
      validateName(value);
      if (value === 'default') {
        throw new Error(
          '--cluster default is the shared cluster other work runs on; name a cluster of its own',
        );
      }
      cluster = value;
      i++;
    } else {
      throw new Error(`unknown flag ${JSON.stringify(flag)} with --against-go; usage: ${AGAINST_GO_USAGE}`);
    }
  }
  return {
    ...numbers,
    order: argv.includes('--go-first') ? ['go', 'ours'] : ['ours', 'go'],
    goAffinity: argv.includes('--go-affinity'),
    cluster,
    keepCluster: argv.includes('--keep-cluster'),
  };
}
