// The 69 MiniCluster manifests of the Go Flux Operator's examples/ at its last v1alpha1 commit, read
// from the archive in ../shared/deps at test time: each one is accepted (and renders), or refused
// with a message that names the field and says why: a v1alpha1 field this operator leaves out
// (with what to use instead), a field name older than v1alpha1, a key the YAML sets twice, or a
// token of the RESTful API too short to keep strangers out.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { parseManifestText, type ManifestDocument } from '../../../src/cli/manifests.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { exampleMiniClusterManifests, type ExampleManifest } from '../../harness/v1alpha1-examples.ts';
import { KEYS } from '../render/fixtures.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';

/** What happens to a manifest: accepted, or refused for a reason about one field or key. */
type Outcome =
  | 'accepted'
  | { leftOut: string }
  | { renamed: string }
  | { duplicateKey: string }
  | { shortCredential: string };

const OLDER_NAMES = { renamed: 'spec.containers[0].fluxOptionFlags' };

const EXPECTED: Record<string, Outcome> = {
  'elasticity/basic/minicluster.yaml': 'accepted',
  'elasticity/horizontal-autoscaler/v1/minicluster.yaml': 'accepted',
  'elasticity/horizontal-autoscaler/v2-cpu/minicluster.yaml': 'accepted',
  'elasticity/horizontal-autoscaler/v2-custom-metric/minicluster.yaml': 'accepted',
  'experimental/bursting/broker-compute-engine/minicluster.yaml': 'accepted',
  'experimental/bursting/broker-eks/minicluster-env.yaml': { duplicateKey: 'spec.interactive' },
  'experimental/bursting/broker-eks/minicluster.yaml': { duplicateKey: 'spec.interactive' },
  'experimental/bursting/broker-gke/minicluster.yaml': 'accepted',
  'experimental/bursting/broker-gke/v1/minicluster.yaml': 'accepted',
  'experimental/bursting/nginx/minicluster.yaml': 'accepted',
  'experimental/shared-process-space/minicluster.yaml': 'accepted',
  'flux-restful/minicluster-conveyorlc.yaml': OLDER_NAMES,
  'flux-restful/minicluster-lammps.yaml': 'accepted',
  'flux-restful/minicluster-multi-tenant.yaml': 'accepted',
  'flux-restful/minicluster-osu-benchmarks.yaml': OLDER_NAMES,
  'interactive/minicluster-persistent.yaml': 'accepted',
  'launchers/merlin/basic/minicluster.yaml': 'accepted',
  'launchers/merlin/singularity-openfoam/minicluster.yaml': 'accepted',
  'launchers/parsl/molecular-design/minicluster.yaml': 'accepted',
  'machine-learning/fireworks/minicluster.yaml': 'accepted',
  'machine-learning/mnist/minicluster.yaml': 'accepted',
  'machine-learning/pytorch/minicluster.yaml': 'accepted',
  'machine-learning/ray/scikit-learn/minicluster.yaml': 'accepted',
  'machine-learning/tensorflow/minicluster.yaml': 'accepted',
  'mpi/mpich/minicluster.yaml': 'accepted',
  'mpi/ompi/minicluster.yaml': 'accepted',
  'nested/k3s/basic/minicluster.yaml': 'accepted',
  'scaling/basic/minicluster.yaml': 'accepted',
  'scaling/expand/minicluster.yaml': 'accepted',
  'services/sidecar/minicluster-registry.yaml': 'accepted',
  'services/sidecar/nginx/minicluster.yaml': { shortCredential: 'spec.fluxRestful.token' },
  'services/single/minicluster-registry.yaml': 'accepted',
  'simulations/exaworks-ball-bounce/minicluster.yaml': 'accepted',
  'simulations/laghos-demos/minicluster.yaml': 'accepted',
  'simulations/lulesh/minicluster.yaml': 'accepted',
  'simulations/qmcpack/minicluster.yaml': 'accepted',
  'simulations/sundials/minicluster.yaml': 'accepted',
  'singularity/lammps-registry/minicluster.yaml': 'accepted',
  'singularity/lammps/minicluster.yaml': 'accepted',
  'singularity/minicluster-hello-world.yaml': 'accepted',
  'singularity/minicluster-prepull.yaml': 'accepted',
  'singularity/mpi-hello-world/minicluster.yaml': 'accepted',
  'singularity/staging/minicluster.yaml': 'accepted',
  'state/basic-job-completion/minicluster.yaml': 'accepted',
  'storage/aws/oidc/minicluster.yaml': 'accepted',
  'storage/google/filestore/minicluster.yaml': 'accepted',
  'storage/google/fusion/minicluster.yaml': { duplicateKey: 'spec.interactive' },
  'storage/google/gcs-csi/minicluster.yaml': 'accepted',
  'storage/ibm/minicluster.yaml': 'accepted',
  'tests/batch/minicluster.yaml': 'accepted',
  'tests/custom-config/minicluster.yaml': 'accepted',
  'tests/debug/minicluster.yaml': 'accepted',
  'tests/existing-volumes/minicluster.yaml': 'accepted',
  'tests/flux-resource-list/minicluster.yaml': 'accepted',
  'tests/hello-world/minicluster.yaml': 'accepted',
  'tests/lammps/minicluster.yaml': 'accepted',
  'tests/minimal-service/minicluster.yaml': 'accepted',
  'tests/nginx-service/minicluster.yaml': 'accepted',
  'tests/nginx-sidecar-service/minicluster.yaml': 'accepted',
  'tests/osu-benchmarks/minicluster.yaml': { duplicateKey: 'spec.containers[0].command' },
  'tests/pokemon/minicluster.yaml': 'accepted',
  'tests/post/minicluster.yaml': 'accepted',
  'tests/singularity/minicluster.yaml': 'accepted',
  'tests/snakemake/minicluster.yaml': 'accepted',
  'tests/timed/minicluster.yaml': 'accepted',
  'tests/volumes/minicluster.yaml': 'accepted',
  'workflows/ramble/minicluster.yaml': 'accepted',
  'workflows/tree-with-variables/minicluster.yaml': 'accepted',
  'workflows/tree/minicluster.yaml': 'accepted',
};

interface Judged {
  readonly outcome: Outcome;
  /** The first thing said about it: `accepted`, or the first problem as a user reads it. */
  readonly message: string;
}

const LEFT_OUT =
  /^is a field of the Go Flux Operator's v1alpha1 API \(.+\) that this operator does not support \(yet\); .+/;
const RENAMED =
  /^is not a field: older Go Flux Operator manifests used this name, its v1alpha1 API \(and this operator\) call it `[\w.]+`; rename it$/;
const SHORT_CREDENTIAL = /^must have at least 32 characters \(a short one can be guessed\); got \d+: /;
const DUPLICATE =
  /invalid YAML: the key "\w+" is set twice \(([\w.[\]]+), first at line \d+\); keep one of them$/;

function summary(outcome: Outcome): string {
  if (outcome === 'accepted') return 'accepted';
  if ('leftOut' in outcome) return `refused: ${outcome.leftOut}, a v1alpha1 field left out`;
  if ('renamed' in outcome) return `refused: ${outcome.renamed}, a name older than v1alpha1`;
  if ('shortCredential' in outcome) return `refused: ${outcome.shortCredential}, shorter than 32 characters`;
  return `refused: invalid YAML, ${outcome.duplicateKey} set twice`;
}

/** Reads, validates and renders one manifest as `flux-operator render` would. */
function judge(manifest: ExampleManifest): Judged {
  const documents: ManifestDocument[] = [];
  const problems: string[] = [];
  parseManifestText(manifest.path, manifest.text, documents, problems);
  const [yamlProblem] = problems;
  if (yamlProblem !== undefined) {
    const key = DUPLICATE.exec(yamlProblem)?.[1];
    assert.ok(key, `${manifest.path}: a YAML problem that does not name the duplicated key: ${yamlProblem}`);
    return { outcome: { duplicateKey: key }, message: yamlProblem.slice(manifest.path.length + 1) };
  }
  assert.equal(documents.length, 1, `${manifest.path}: one MiniCluster`);
  const result = validateMiniClusterV1alpha1(documents[0]?.content);
  if (result.ok) {
    assert.ok(renderMiniCluster(defaultedToV1alpha2(result.value), KEYS).length > 0);
    return { outcome: 'accepted', message: 'accepted' };
  }
  const [first] = result.problems;
  assert.ok(first);
  const message = formatProblem(first);
  if (LEFT_OUT.test(first.message)) return { outcome: { leftOut: first.path }, message };
  if (RENAMED.test(first.message)) return { outcome: { renamed: first.path }, message };
  if (SHORT_CREDENTIAL.test(first.message)) return { outcome: { shortCredential: first.path }, message };
  assert.fail(`${manifest.path}: refused for another reason: ${message}`);
}

describe('the Go operator v1alpha1 examples (69 MiniCluster manifests, from ../shared/deps)', () => {
  let manifests: ExampleManifest[] = [];
  before(async () => {
    manifests = await exampleMiniClusterManifests();
  });

  it('are the 69 this test expects, no more, no fewer', () => {
    assert.deepEqual(
      manifests.map((manifest) => manifest.path),
      Object.keys(EXPECTED).sort(),
    );
  });

  it('are each accepted, or refused with a message naming the field or key and what to do', (t) => {
    const rows: string[] = [];
    for (const manifest of manifests) {
      const { outcome, message } = judge(manifest);
      assert.deepEqual(outcome, EXPECTED[manifest.path], `${manifest.path}: ${message}`);
      rows.push(`| ${manifest.path} | ${summary(outcome)} | ${message} |`);
    }
    // The table of outcomes, one diagnostic line a row (`--test-reporter=tap` shows them).
    for (const row of ['| manifest | outcome | first message |', '|---|---|---|', ...rows]) t.diagnostic(row);
    const accepted = Object.values(EXPECTED).filter((outcome) => outcome === 'accepted').length;
    assert.equal(accepted, 62);
  });

  it('with spec.services, render the services pod under the name their containers use for it', () => {
    const rendered: Record<string, string> = {};
    for (const manifest of manifests) {
      if (!/^\s+services:/m.test(manifest.text) || EXPECTED[manifest.path] !== 'accepted') continue;
      const documents: ManifestDocument[] = [];
      parseManifestText(manifest.path, manifest.text, documents, []);
      const result = validateMiniClusterV1alpha1(documents[0]?.content);
      assert.ok(result.ok, manifest.path);
      const deployment = renderMiniCluster(defaultedToV1alpha2(result.value), KEYS).find(
        (object) => object.kind === 'Deployment',
      ) as V1Deployment | undefined;
      const pod = deployment?.spec?.template.spec;
      const address = `${pod?.hostname}.${pod?.subdomain}.flux-operator.svc.cluster.local`;
      rendered[manifest.path] = `${deployment?.metadata?.name} ${address}`;
      // Where the manifest addresses its services, it is by exactly this name.
      for (const used of manifest.text.match(/[\w-]+-services\.[\w-]+\.[\w-]+\.svc\.cluster\.local/g) ?? []) {
        assert.equal(used, address, manifest.path);
      }
    }
    const address = 'flux-sample-services flux-sample-services.flux-service.flux-operator.svc.cluster.local';
    const ownName = 'flux-sample-services flux-sample-services.flux-sample.flux-operator.svc.cluster.local';
    assert.deepEqual(rendered, {
      'experimental/bursting/broker-gke/v1/minicluster.yaml': ownName,
      'experimental/bursting/nginx/minicluster.yaml': ownName,
      'machine-learning/fireworks/minicluster.yaml': address,
      'services/single/minicluster-registry.yaml': address,
      'singularity/lammps-registry/minicluster.yaml': address,
      'tests/nginx-service/minicluster.yaml': address,
    });
  });
});
