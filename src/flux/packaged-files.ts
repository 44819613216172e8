// The files the operator ships as they are and reads at run time: the pods' scripts and the RESTful
// server. Each folder that holds some names them in one table beside them (`scripts/files.ts`,
// `src/restful/server-files.ts`), and
// `npm run build` (hack/build.ts) copies them into its output next to the compiled table: so the same
// relative URL finds them whether the code runs from src/ or from dist/ (and the operator's image).
// Reading them is the one I/O of the pure layers, and it reads only the program's own package.
import { readFileSync } from 'node:fs';

export interface PackagedFiles<Name extends string> {
  /** Every file of the table, in the order it was given. */
  readonly names: readonly Name[];
  /** Where a file is: beside the module that made the table. */
  url(name: Name): URL;
  /** A file's text, read on first use and kept for the life of the process. */
  text(name: Name): string;
}

/** The table of files beside `moduleUrl` (the caller's `import.meta.url`). */
export function packagedFiles<const Name extends string>(
  moduleUrl: string,
  names: readonly Name[],
): PackagedFiles<Name> {
  const texts = new Map<Name, string>();
  const url = (name: Name) => new URL(name, moduleUrl);
  return {
    names,
    url,
    text(name) {
      const known = texts.get(name);
      if (known !== undefined) return known;
      const text = readFileSync(url(name), 'utf8');
      texts.set(name, text);
      return text;
    },
  };
}
