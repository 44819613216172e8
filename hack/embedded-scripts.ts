/**
 * The scripts the operator ships are files (bash `.sh`, Python `.py`) under a `scripts/` folder of
 * their source folder, linted and tested as what they are (`npm run lint`, `npm run test:python`).
 * The operator runs from dist/ and from its image, where only compiled TypeScript is: so each folder's
 * scripts are embedded, byte for byte, as string constants of a generated module beside them
 * (`scripts/embedded.ts`, written by hack/generate.ts; the staleness test fails when one is out of
 * date). The constant of `entrypoint.sh` is `ENTRYPOINT_SH`, of `restful_server.py` `RESTFUL_SERVER_PY`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedHeader } from './generated-header.ts';

/** Folders of scripts, relative to the repository root. */
export const SCRIPT_FOLDERS = ['src/flux/scripts', 'src/burst/scripts'];

/** The generated module of a folder. */
export const EMBEDDED_MODULE = 'embedded.ts';

// The browser script and style sheet of the RESTful server's pages ship the same way.
const SCRIPT_FILE = /\.(sh|py|js|css)$/;

export interface EmbeddedScripts {
  /** Relative to the repository root. */
  path: string;
  content: () => string;
}

/** `flux-queue.sh` -> `FLUX_QUEUE_SH`. */
export function constantName(file: string): string {
  return file.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

/** The text as a template literal holding it exactly. */
function templateLiteral(text: string): string {
  return `\`${text.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${')}\``;
}

/** The script files of a folder, sorted. */
export function scriptFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder))
    .filter((file) => SCRIPT_FILE.test(file))
    .sort();
}

export function embeddedScripts(root: string): EmbeddedScripts[] {
  return SCRIPT_FOLDERS.map((folder) => ({
    path: `${folder}/${EMBEDDED_MODULE}`,
    content: () => {
      const constants = scriptFiles(root, folder).map((file) => {
        const text = readFileSync(join(root, folder, file), 'utf8');
        return `/** ${folder}/${file} */\nexport const ${constantName(file)} = ${templateLiteral(text)};\n`;
      });
      return `${generatedHeader(folder, (line) => `// ${line}`)}\n\n${constants.join('\n')}`;
    },
  }));
}
