/**
 * Bad input from the user (a file, a flag, a spec). The CLI prints every problem on stderr and exits
 * with INPUT_ERROR_EXIT_CODE, without a stack trace: the problems are the whole message.
 */
export class InputError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'InputError';
    this.problems = problems;
  }
}

export const INPUT_ERROR_EXIT_CODE = 2;
