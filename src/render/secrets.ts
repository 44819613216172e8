import type { V1Secret } from '@kubernetes/client-node';
import { COMPONENT_CONFIG, SECRET_DATA_KEYS, commonLabels } from '../api/index.ts';
import type { MiniClusterKeys } from './keys.ts';
import type { Rendered } from './kube-object.ts';
import type { DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import { renderRestfulSecret, servesRestful } from './restful.ts';

type NamedSecret = Rendered<V1Secret>;

function secret(
  miniCluster: DefaultedMiniCluster,
  name: string,
  key: string,
  value: Uint8Array,
): NamedSecret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: namespaceOf(miniCluster),
      labels: commonLabels(miniCluster.metadata.name, COMPONENT_CONFIG),
    },
    type: 'Opaque',
    // Immutable: keys are made once per MiniCluster, and the API server then refuses any change.
    immutable: true,
    data: { [key]: Buffer.from(value).toString('base64') },
  };
}

/**
 * The Secrets the operator generates: the curve certificate (from `keys`, or the spec's inline
 * `flux.curveCert`) unless `curveCertSecret` names one, the munge key unless `mungeSecret` does,
 * and the RESTful API's credentials when the lead serves it.
 */
export function renderSecrets(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
  keys: MiniClusterKeys,
): NamedSecret[] {
  const secrets: NamedSecret[] = [];
  if (names.generatesCurveCertSecret) {
    const certificate = miniCluster.spec.flux.curveCert ?? keys.curveCertificate;
    secrets.push(
      secret(
        miniCluster,
        names.curveCertSecret,
        SECRET_DATA_KEYS.curveCert,
        Buffer.from(certificate, 'utf8'),
      ),
    );
  }
  if (names.generatesMungeKeySecret) {
    secrets.push(secret(miniCluster, names.mungeKeySecret, SECRET_DATA_KEYS.mungeKey, keys.mungeKey));
  }
  if (servesRestful(miniCluster)) secrets.push(renderRestfulSecret(miniCluster, names, keys.restfulSeed));
  return secrets;
}
