// The Python program of a RESTful MiniCluster's lead pod, shipped in the MiniCluster's ConfigMap and
// run with `flux python` as the instance's initial program (see docs/restful-api.md). The program is
// scripts/restful_server.py, embedded by `npm run generate` (the operator runs from its build output,
// which holds only compiled TypeScript); linted with flake8 and tested with pytest (test/python).
import { RESTFUL_SERVER_PY } from './scripts/embedded.ts';

/** The server's file in the ConfigMap (and under OPERATOR_DIR in the pod). */
export const RESTFUL_SERVER_FILE = 'restful-server.py';

export const RESTFUL_SERVER_SCRIPT: string = RESTFUL_SERVER_PY;
