// The flags of `npm run bench -- --view`.

export interface ViewOptions {
  /** Rounds; each runs the MiniCluster once from the view and once with Flux in its image. */
  rounds: number;
  /** Longest wait for one MiniCluster to succeed (and for one to be gone afterwards). */
  timeoutSeconds: number;
}

export const VIEW_USAGE = 'npm run bench -- --view [--rounds N (3)] [--timeout-seconds N (300)]';

const NUMBERS = { '--rounds': 'rounds', '--timeout-seconds': 'timeoutSeconds' } as const;

function isNumberFlag(flag: string): flag is keyof typeof NUMBERS {
  return Object.hasOwn(NUMBERS, flag);
}

/** Parses the flags; throws naming the flag and what it takes when one is unknown or has a bad value. */
export function parseViewOptions(argv: readonly string[]): ViewOptions {
  const options: ViewOptions = { rounds: 3, timeoutSeconds: 300 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--view') continue;
    if (!isNumberFlag(flag)) {
      throw new Error(`unknown flag ${JSON.stringify(flag)} with --view; usage: ${VIEW_USAGE}`);
    }
    const value = argv[i + 1];
    const number = Number(value);
    if (value === undefined || value.trim() === '' || !Number.isInteger(number) || number < 1) {
      throw new Error(`${flag} takes a whole number of at least 1, not ${JSON.stringify(value ?? '')}`);
    }
    options[NUMBERS[flag]] = number;
    i++;
  }
  return options;
}

export type ViewKind = 'view' | 'baked';

/**
 * The order the MiniClusters run in: the two kinds alternate, and each round starts with the kind the
 * previous one ended with (view, baked, baked, view, view, baked, ...), so neither always runs first
 * after a quiet machine or always right after the other.
 */
export function viewRunOrder(rounds: number): ViewKind[] {
  const order: ViewKind[] = [];
  for (let round = 0; round < rounds; round++) {
    order.push(...(round % 2 === 0 ? (['view', 'baked'] as const) : (['baked', 'view'] as const)));
  }
  return order;
}
