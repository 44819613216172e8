/**
 * The data keys (entry names) of the Secrets a MiniCluster's pods mount, in one place as the label
 * keys are in labels.ts: the operator writes them, reads them back, mounts them as files, and users
 * name them when they bring their own Secrets (`curveCertSecret`, `mungeSecret`), so every one of
 * those places must agree.
 */
export const SECRET_DATA_KEYS = {
  /** The CURVE certificate (zcert text): `<name>-curve-cert`, or the user's `spec.flux.curveCertSecret`. */
  curveCert: 'curve.cert',
  /** The munge key's raw bytes: `<name>-munge-key`, or the user's `spec.flux.mungeSecret`. */
  mungeKey: 'munge.key',
  /** The Secret `<name>-restful` of the RESTful API; `flux-operator jobs` reads username and token. */
  restful: {
    username: 'username',
    token: 'token',
    secretKey: 'secretKey',
    /** The random seed the generated token, key and passwords derive from (kept so they stay). */
    seed: 'seed',
    /** The server's users and signing key as one JSON file, the only entry the lead pod mounts. */
    credentials: 'credentials.json',
  },
} as const;
