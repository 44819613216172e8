/**
 * The client's generic object API with a server-side apply that sends and returns plain JSON.
 *
 * The client's own `patch` deserializes a built-in object into its model classes and serializes it
 * back before sending, then deserializes the response the same way: for objects that are already
 * JSON (everything the operator renders is) that is pure cost, and it silently drops any field its
 * models lack. Discovery (kind to resource path, cached), authentication, the connection pool and
 * request middleware are the client's, so errors stay `ApiException`s with the same codes and bodies.
 */
import {
  ApiException,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
// The client's request types (not re-exported by its index).
import { HttpMethod, type ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';

/** Tells processResponse to hand back the parsed JSON as is. */
const PLAIN_JSON = 'flux-operator:plain-json';

export class ObjectApi extends KubernetesObjectApi {
  /** Like KubernetesObjectApi.makeApiClient, for this class. */
  static forConfig(config: KubeConfig): ObjectApi {
    const api = config.makeApiClient(ObjectApi);
    api.setDefaultNamespace(config);
    return api;
  }

  /**
   * Server-side apply of `object` as it is (its JSON), forcing ownership of the fields it sets.
   * With `dryRun`, the API server validates and admits the object but stores nothing.
   */
  async apply<T extends KubernetesObject>(object: T, fieldManager: string, dryRun = false): Promise<T> {
    const path = await this.specUriPath(object, 'patch');
    const request = this.configuration.baseServer.makeRequestContext(path, HttpMethod.PATCH);
    request.setHeaderParam('Accept', 'application/json');
    request.setHeaderParam('Content-Type', PatchStrategy.ServerSideApply);
    request.setQueryParam('fieldManager', fieldManager);
    request.setQueryParam('force', 'true');
    if (dryRun) request.setQueryParam('dryRun', 'All');
    // JSON is YAML: the API server takes it as an apply patch.
    request.setBody(JSON.stringify(object));
    return this.requestPromise<T>(request, PLAIN_JSON);
  }

  protected override async processResponse<T extends KubernetesObject>(
    response: ResponseContext,
    type?: string,
  ): Promise<T> {
    if (type !== PLAIN_JSON) return super.processResponse<T>(response, type);
    const text = await response.body.text();
    if (response.httpStatusCode >= 200 && response.httpStatusCode <= 299) return JSON.parse(text) as T;
    // The same exception, message and body (the text) the client raises: error mapping sees no change.
    throw new ApiException(response.httpStatusCode, 'Unsuccessful HTTP Request', text, response.headers);
  }
}
