/** Shell quoting for generated bash. */

/**
 * Words made only of these characters mean the same to bash quoted or not. (Commas are safe for bash
 * but quoted anyway: shellcheck reads a bare comma in an array as a mistaken separator.)
 */
const SAFE_WORD = /^[A-Za-z0-9_\-+=.:/@%]+$/;

/**
 * Quotes one word for bash so it reaches the command as exactly `word`: no expansion, splitting or
 * globbing. Safe words stay bare (for readable scripts); others are single-quoted, with each `'`
 * written as `'"'"'` (close, a double-quoted quote, reopen). Not `'\''`: quoted again, as shell
 * text made of quoted words is (a program text holding quoted options), its backslashes read to
 * shellcheck as a mistaken escape (SC1003), and the generated scripts must pass shellcheck.
 */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new Error('a shell word cannot contain a NUL character');
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** Quotes each word and joins them with spaces: a command line whose argv is `words`. */
export function shellQuoteWords(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
