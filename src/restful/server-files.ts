// The Python program of a RESTful MiniCluster's lead pod, shipped in the MiniCluster's ConfigMap and
// run with `flux python` as the instance's initial program (see docs/restful-api.md). The program is
// restful_server.py with the modules it imports, restful_http.py (HTTP within limits), restful_auth.py
// (users, tokens, keeping its secrets from the jobs) and restful_pages.py (the web pages, with
// restful_pages.js and .css): files of this folder, linted with flake8 and tested with pytest (tests/).
import { packagedFiles } from '../flux/packaged-files.ts';

/** The server's file in the ConfigMap (and under OPERATOR_DIR in the pod), the one Python runs. */
export const RESTFUL_SERVER_FILE = 'restful-server.py';

/**
 * The source file of each file of the server in the ConfigMap: the program, and the modules it imports
 * from its own folder (so under their Python module names), in the ConfigMap's order.
 */
const IN_CONFIG_MAP = {
  [RESTFUL_SERVER_FILE]: 'restful_server.py',
  'restful_auth.py': 'restful_auth.py',
  'restful_http.py': 'restful_http.py',
  // The web pages (under /ui/), with the script and style sheet they serve beside them.
  'restful_pages.py': 'restful_pages.py',
  'restful_pages.js': 'restful_pages.js',
  'restful_pages.css': 'restful_pages.css',
} as const;

export const RESTFUL_SERVER_SOURCES = packagedFiles(import.meta.url, Object.values(IN_CONFIG_MAP));

/** The names of the server's files in the ConfigMap. */
export const RESTFUL_SERVER_FILE_NAMES: readonly string[] = Object.keys(IN_CONFIG_MAP);

/** Every file of the server by its name in the ConfigMap, with its text. */
export function restfulServerFiles(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(IN_CONFIG_MAP).map(([name, source]) => [name, RESTFUL_SERVER_SOURCES.text(source)]),
  );
}
