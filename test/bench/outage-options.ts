// The flags of `npm run bench -- --outage`.
import { DEFAULT_CLUSTER, validateName } from '../../workbench/src/localcluster/paths.ts';

export interface OutageOptions {
  /** Rounds; each times the work on the healthy cluster, then after an outage of the API server. */
  rounds: number;
  /** The local cluster the bench starts, kills the API server of, and removes at the end. */
  cluster: string;
}

export const OUTAGE_USAGE = 'npm run bench -- --outage [--rounds N (3)] [--cluster NAME (bench-outage)]';

/** Parses the flags; throws naming the flag and what it takes when one is unknown or has a bad value. */
export function parseOutageOptions(argv: readonly string[]): OutageOptions {
  const options: OutageOptions = { rounds: 3, cluster: 'bench-outage' };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--outage') continue;
    const value = argv[i + 1];
    if (flag === '--rounds') {
      const number = Number(value);
      if (value === undefined || value.trim() === '' || !Number.isInteger(number) || number < 1) {
        throw new Error(`--rounds takes a whole number of at least 1, not ${JSON.stringify(value ?? '')}`);
      }
      options.rounds = number;
    } else if (flag === '--cluster') {
      const name = value ?? '';
      try {
        validateName(name);
      } catch (error) {
        throw new Error(`--cluster: ${(error as Error).message}`, { cause: error });
      }
      if (name === DEFAULT_CLUSTER) {
        throw new Error(
          '--cluster default is the cluster the tests share: the bench kills its API server; name one of its own',
        );
      }
      options.cluster = name;
    } else {
      throw new Error(`unknown flag ${JSON.stringify(flag)} with --outage; usage: ${OUTAGE_USAGE}`);
    }
    i++;
  }
  return options;
}
