// The Python program of a RESTful MiniCluster's lead pod, shipped in the MiniCluster's ConfigMap and
// run with `flux python` as the instance's initial program (see docs/restful-api.md). The program is
// scripts/restful_server.py with the modules it imports, restful_http.py (HTTP within limits),
// restful_auth.py (users, tokens, keeping its secrets from the jobs) and restful_pages.py (the web
// pages, with restful_pages.js and .css), embedded by `npm run
// generate` (the operator runs from its build output, which holds only compiled TypeScript); linted
// with flake8 and tested with pytest (test/python).
import {
  RESTFUL_AUTH_PY,
  RESTFUL_HTTP_PY,
  RESTFUL_PAGES_CSS,
  RESTFUL_PAGES_JS,
  RESTFUL_PAGES_PY,
  RESTFUL_SERVER_PY,
} from './scripts/embedded.ts';

/** The server's file in the ConfigMap (and under OPERATOR_DIR in the pod), the one Python runs. */
export const RESTFUL_SERVER_FILE = 'restful-server.py';

export const RESTFUL_SERVER_SCRIPT: string = RESTFUL_SERVER_PY;

/**
 * Every file of the server, by its name in the ConfigMap: the program, and the modules it imports
 * from its own folder (so under their Python module names).
 */
export const RESTFUL_SERVER_FILES: Readonly<Record<string, string>> = {
  [RESTFUL_SERVER_FILE]: RESTFUL_SERVER_PY,
  'restful_auth.py': RESTFUL_AUTH_PY,
  'restful_http.py': RESTFUL_HTTP_PY,
  // The web pages (under /ui/), with the script and style sheet they serve beside them.
  'restful_pages.py': RESTFUL_PAGES_PY,
  'restful_pages.js': RESTFUL_PAGES_JS,
  'restful_pages.css': RESTFUL_PAGES_CSS,
};
