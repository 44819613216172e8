/**
 * One ConversionReview (apiextensions.k8s.io/v1) answered: every object of the request converted to
 * its desiredAPIVersion by the injected converter, the request's uid echoed, and a Failure naming the
 * object and the reason when any one cannot be converted (the API server then fails the request with
 * that message). Pure: no I/O; what failed is returned for the caller to log without the objects.
 */

/** Converts one MiniCluster to `desiredApiVersion`; throws with a message naming the field when it cannot. */
export type MiniClusterConverter = (obj: unknown, desiredApiVersion: string) => object;

export const CONVERSION_REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';
export const CONVERSION_REVIEW_KIND = 'ConversionReview';

export interface ConversionReviewRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly unknown[];
}

export interface ConversionReviewResponse {
  apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  kind: typeof CONVERSION_REVIEW_KIND;
  response: {
    uid: string;
    convertedObjects: object[];
    result: { status: 'Success' } | { status: 'Failure'; message: string };
  };
}

/** What went wrong with one object (never the object itself: it may hold secrets). */
export interface ConversionFailure {
  readonly index: number;
  /** `namespace/name` of the object, when it has them. */
  readonly object: string;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request of a ConversionReview body, or why it is not one. */
export function parseConversionReview(body: unknown): ConversionReviewRequest | string {
  if (!isRecord(body)) return 'the body is not a JSON object';
  if (body.apiVersion !== CONVERSION_REVIEW_API_VERSION || body.kind !== CONVERSION_REVIEW_KIND) {
    return `expected a ${CONVERSION_REVIEW_API_VERSION} ${CONVERSION_REVIEW_KIND}, got apiVersion ${JSON.stringify(body.apiVersion)} kind ${JSON.stringify(body.kind)}`;
  }
  const request = body.request;
  if (!isRecord(request)) return 'request: missing';
  if (typeof request.uid !== 'string' || request.uid === '') return 'request.uid: missing';
  if (typeof request.desiredAPIVersion !== 'string' || request.desiredAPIVersion === '') {
    return 'request.desiredAPIVersion: missing';
  }
  if (!Array.isArray(request.objects)) return 'request.objects: expected a list';
  return { uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, objects: request.objects };
}

function objectName(object: unknown): string {
  const metadata = isRecord(object) && isRecord(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '?';
  return typeof metadata.namespace === 'string' ? `${metadata.namespace}/${name}` : name;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Converts every object of the request; the first failure fails the whole review, as Kubernetes expects. */
export function answerConversionReview(
  request: ConversionReviewRequest,
  convert: MiniClusterConverter,
): { review: ConversionReviewResponse; failure?: ConversionFailure } {
  const converted: object[] = [];
  for (const [index, object] of request.objects.entries()) {
    let failure: string | undefined;
    try {
      const result = convert(object, request.desiredAPIVersion);
      const apiVersion = (result as { apiVersion?: unknown }).apiVersion;
      if (apiVersion === request.desiredAPIVersion) converted.push(result);
      else failure = `the converter returned apiVersion ${JSON.stringify(apiVersion)}`;
    } catch (error) {
      failure = messageOf(error);
    }
    if (failure !== undefined) {
      const name = objectName(object);
      const message = `converting MiniCluster ${name} to ${request.desiredAPIVersion}: ${failure}`;
      return {
        review: reviewOf(request.uid, [], { status: 'Failure', message }),
        failure: { index, object: name, message },
      };
    }
  }
  return { review: reviewOf(request.uid, converted, { status: 'Success' }) };
}

function reviewOf(
  uid: string,
  convertedObjects: object[],
  result: ConversionReviewResponse['response']['result'],
): ConversionReviewResponse {
  return {
    apiVersion: CONVERSION_REVIEW_API_VERSION,
    kind: CONVERSION_REVIEW_KIND,
    response: { uid, convertedObjects, result },
  };
}
