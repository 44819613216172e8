// The flags of `npm run bench -- --view`.

export interface ViewOptions {
  /**
   * Rounds; each runs the MiniCluster once from the view, once from the view in memory
   * (flux.container.medium: Memory) and once with Flux in its image.
   */
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

export type ViewKind = 'view' | 'memory' | 'baked';

const KINDS: readonly ViewKind[] = ['view', 'memory', 'baked'];

/**
 * The order the MiniClusters run in: each round runs every kind once, rotated by one each round
 * (view, memory, baked, memory, baked, view, baked, view, memory, ...), so that over every three
 * rounds each kind runs first, second and third once: none always runs first after a quiet machine
 * or always right after another.
 */
export function viewRunOrder(rounds: number): ViewKind[] {
  const order: ViewKind[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < KINDS.length; index++) {
      order.push(KINDS[(round + index) % KINDS.length] as ViewKind);
    }
  }
  return order;
}
