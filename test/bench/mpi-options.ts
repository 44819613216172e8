// The flags of `npm run bench -- --mpi`.

export interface MpiOptions {
  /** Pods of the MiniCluster, and ranks of the LAMMPS runs (NetPIPE always runs on 2). */
  size: number;
  /** Rounds; each runs every measurement once (mpi-rounds.ts). */
  rounds: number;
  /** Longest wait for one pod or MiniCluster to be done (or gone), or one `flux run`. */
  timeoutSeconds: number;
}

export const MPI_USAGE = 'npm run bench -- --mpi [--size N (2)] [--rounds N (3)] [--timeout-seconds N (300)]';

/** Each number flag, the option it sets and its least value (MPI across pods needs 2 of them). */
const NUMBERS = {
  '--size': { option: 'size', least: 2 },
  '--rounds': { option: 'rounds', least: 1 },
  '--timeout-seconds': { option: 'timeoutSeconds', least: 1 },
} as const;

function isNumberFlag(flag: string): flag is keyof typeof NUMBERS {
  return Object.hasOwn(NUMBERS, flag);
}

/** Parses the flags; throws naming the flag and what it takes when one is unknown or has a bad value. */
export function parseMpiOptions(argv: readonly string[]): MpiOptions {
  const options: MpiOptions = { size: 2, rounds: 3, timeoutSeconds: 300 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--mpi') continue;
    if (!isNumberFlag(flag)) {
      throw new Error(`unknown flag ${JSON.stringify(flag)} with --mpi; usage: ${MPI_USAGE}`);
    }
    const { option, least } = NUMBERS[flag];
    const value = argv[i + 1];
    const number = Number(value);
    if (value === undefined || value.trim() === '' || !Number.isInteger(number) || number < least) {
      throw new Error(
        `${flag} takes a whole number of at least ${least}, not ${JSON.stringify(value ?? '')}`,
      );
    }
    options[option] = number;
    i++;
  }
  return options;
}
