import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  answerConversionReview,
  parseConversionReview,
  type MiniClusterConverter,
} from '../../../../src/controllers/conversion/review.ts';

/** A converter that records what it was asked and sets the version (and refuses `spec.bad`). */
function recordingConverter(): { convert: MiniClusterConverter; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    convert: (obj, desired) => {
      const object = obj as { metadata: { name: string }; spec?: { bad?: boolean } };
      calls.push(`${object.metadata.name}->${desired}`);
      if (object.spec?.bad) throw new Error('spec.bad: cannot be converted');
      return { ...object, apiVersion: desired };
    },
  };
}

function review(objects: unknown[], uid = 'c0ffee', desired = 'flux-framework.org/v1alpha2') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: desired, objects },
  };
}

function miniCluster(name: string, spec: object = {}) {
  return {
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name, namespace: 'ns' },
    spec,
  };
}

describe('ConversionReview', () => {
  it('converts every object in order and echoes the uid', () => {
    const { convert, calls } = recordingConverter();
    const request = parseConversionReview(review([miniCluster('a'), miniCluster('b')], 'uid-1'));
    assert.ok(typeof request !== 'string');
    const { review: answer, failure } = answerConversionReview(request, convert);
    assert.equal(failure, undefined);
    assert.equal(answer.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(answer.kind, 'ConversionReview');
    assert.equal(answer.response.uid, 'uid-1');
    assert.deepEqual(answer.response.result, { status: 'Success' });
    assert.deepEqual(
      answer.response.convertedObjects.map((o) => [
        (o as { metadata: { name: string } }).metadata.name,
        (o as { apiVersion: string }).apiVersion,
      ]),
      [
        ['a', 'flux-framework.org/v1alpha2'],
        ['b', 'flux-framework.org/v1alpha2'],
      ],
    );
    assert.deepEqual(calls, ['a->flux-framework.org/v1alpha2', 'b->flux-framework.org/v1alpha2']);
  });

  it('answers an empty list with success and no objects', () => {
    const request = parseConversionReview(review([]));
    assert.ok(typeof request !== 'string');
    const { review: answer } = answerConversionReview(request, recordingConverter().convert);
    assert.deepEqual(answer.response.convertedObjects, []);
    assert.equal(answer.response.result.status, 'Success');
  });

  it('fails the whole review on the first object that cannot be converted, naming it and why', () => {
    const { convert, calls } = recordingConverter();
    const request = parseConversionReview(
      review([miniCluster('ok'), miniCluster('broken', { bad: true }), miniCluster('never')]),
    );
    assert.ok(typeof request !== 'string');
    const { review: answer, failure } = answerConversionReview(request, convert);
    assert.deepEqual(answer.response.result, {
      status: 'Failure',
      message:
        'converting MiniCluster ns/broken to flux-framework.org/v1alpha2: spec.bad: cannot be converted',
    });
    assert.deepEqual(answer.response.convertedObjects, []);
    assert.deepEqual(failure, {
      index: 1,
      object: 'ns/broken',
      message: answer.response.result.status === 'Failure' ? answer.response.result.message : '',
    });
    assert.deepEqual(calls, ['ok->flux-framework.org/v1alpha2', 'broken->flux-framework.org/v1alpha2']);
  });

  it('fails when the converter returns another apiVersion than the one asked for', () => {
    const request = parseConversionReview(review([miniCluster('a')]));
    assert.ok(typeof request !== 'string');
    const { review: answer } = answerConversionReview(request, (obj) => ({ ...(obj as object) }));
    assert.equal(answer.response.result.status, 'Failure');
    assert.match(
      answer.response.result.status === 'Failure' ? answer.response.result.message : '',
      /^converting MiniCluster ns\/a to flux-framework.org\/v1alpha2: the converter returned apiVersion "flux-framework.org\/v1alpha1"$/,
    );
  });

  it('says what is wrong with a body that is not a ConversionReview', () => {
    assert.equal(parseConversionReview([]), 'the body is not a JSON object');
    assert.match(
      String(parseConversionReview({ apiVersion: 'v1', kind: 'Status' })),
      /expected a apiextensions.k8s.io\/v1 ConversionReview/,
    );
    assert.equal(parseConversionReview({ ...review([]), request: undefined }), 'request: missing');
    assert.equal(
      parseConversionReview({ ...review([]), request: { desiredAPIVersion: 'x', objects: [] } }),
      'request.uid: missing',
    );
    assert.equal(
      parseConversionReview({ ...review([]), request: { uid: 'u', objects: [] } }),
      'request.desiredAPIVersion: missing',
    );
    assert.equal(
      parseConversionReview({ ...review([]), request: { uid: 'u', desiredAPIVersion: 'x', objects: {} } }),
      'request.objects: expected a list',
    );
  });
});
