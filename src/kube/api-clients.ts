/**
 * The API calls the operator makes, on its own transport (transport.ts): the few methods of the
 * official client's CoreV1Api, CustomObjectsApi, CoordinationV1Api and EventsV1Api that the
 * controller uses (and AppsV1Api's Deployment delete), with the same names and parameters, plus server-side apply and list/watch by
 * path for the caches. Only the client's types are imported: its code never loads on these paths.
 *
 * Answers are the API server's JSON as is (timestamps stay strings, every field is kept); patches
 * of custom objects are merge patches, the only kind the controller sends.
 */
import type {
  EventsV1Event,
  KubernetesListObject,
  KubernetesObject,
  V1Lease,
  V1Namespace,
  V1PersistentVolume,
  V1PersistentVolumeList,
  V1Secret,
  V1SecretList,
  V1Status,
} from '@kubernetes/client-node';
import type { ClusterAccess } from './cluster-access.ts';
import { Transport, type Query, type RequestObserver } from './transport.ts';
import { DEFAULT_NAMESPACE } from '../api/index.ts';

const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

interface CustomObjectRef {
  group: string;
  version: string;
  plural: string;
}

/**
 * The path of a collection under an API prefix (`/api/v1`, `/apis/batch/v1`): in one namespace, or
 * (namespace undefined) in all of them or cluster-wide.
 */
export function collectionPath(prefix: string, resource: string, namespace?: string): string {
  return namespace === undefined ? `${prefix}/${resource}` : `${prefix}/namespaces/${namespace}/${resource}`;
}

function customPath(ref: CustomObjectRef & { namespace?: string; name?: string }): string {
  const collection = collectionPath(`/apis/${ref.group}/${ref.version}`, ref.plural, ref.namespace);
  return ref.name === undefined ? collection : `${collection}/${ref.name}`;
}

function withSelector(labelSelector: string | undefined): Query | undefined {
  return labelSelector === undefined ? undefined : { labelSelector };
}

function withPropagationPolicy(propagationPolicy: string | undefined): { query?: Query } {
  return propagationPolicy ? { query: { propagationPolicy } } : {};
}

/** Where an apiVersion's resources are served: /api/v1 for the core group, /apis/<group>/<version> else. */
function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The resource of a kind, as discovery lists it. */
interface ResourceInfo {
  readonly name: string;
  readonly namespaced: boolean;
}

/** Server-side apply of objects as their JSON, resource paths found through (cached) discovery. */
export class ObjectApplier {
  private readonly transport: Transport;
  private readonly discovered = new Map<string, Promise<Map<string, ResourceInfo>>>();

  constructor(transport: Transport) {
    this.transport = transport;
  }

  /**
   * Server-side apply of `object` as it is (its JSON), forcing ownership of the fields it sets.
   * With `dryRun`, the API server validates and admits the object but stores nothing.
   */
  async apply<T extends KubernetesObject>(object: T, fieldManager: string, dryRun = false): Promise<T> {
    const path = await this.objectPath(object);
    return this.transport.request<T>('PATCH', path, {
      query: { fieldManager, force: 'true', ...(dryRun ? { dryRun: 'All' } : {}) },
      // JSON is YAML: the API server takes it as an apply patch.
      body: JSON.stringify(object),
      contentType: APPLY_PATCH,
    });
  }

  /** The object's path: /api/v1/namespaces/ns/configmaps/name, /apis/g/v/... */
  async objectPath(object: KubernetesObject): Promise<string> {
    const { apiVersion, kind } = object;
    const name = object.metadata?.name;
    if (!apiVersion || !kind || !name) {
      throw new Error('an object to apply needs apiVersion, kind and metadata.name');
    }
    const resources = await this.resources(apiVersion);
    const resource = resources.get(kind);
    if (!resource) throw new Error(`the API server has no kind ${kind} in ${apiVersion}`);
    const namespace = object.metadata?.namespace ?? this.transport.access.namespace ?? DEFAULT_NAMESPACE;
    const scope = resource.namespaced ? namespace : undefined;
    return `${collectionPath(apiPrefix(apiVersion), resource.name, scope)}/${name}`;
  }

  private resources(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    let found = this.discovered.get(apiVersion);
    if (!found) {
      found = this.transport
        .request<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>(
          'GET',
          apiPrefix(apiVersion),
        )
        .then(
          (list) =>
            new Map(
              (list.resources ?? [])
                .filter((resource) => !resource.name.includes('/'))
                .map((resource) => [resource.kind, { name: resource.name, namespaced: resource.namespaced }]),
            ),
        );
      // A failed discovery (server away, CRD not yet there) is asked again next time.
      found.catch(() => this.discovered.delete(apiVersion));
      this.discovered.set(apiVersion, found);
    }
    return found;
  }
}

export class CoreApi {
  private readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }
  readNamespace(param: { name: string }): Promise<V1Namespace> {
    return this.transport.request('GET', `/api/v1/namespaces/${param.name}`);
  }
  readNamespacedSecret(param: { name: string; namespace: string }): Promise<V1Secret> {
    return this.transport.request('GET', `/api/v1/namespaces/${param.namespace}/secrets/${param.name}`);
  }
  /** Creates the Secret, or fails with 409 AlreadyExists: the one write that never replaces one. */
  createNamespacedSecret(param: {
    namespace: string;
    body: V1Secret;
    fieldManager: string;
  }): Promise<V1Secret> {
    return this.transport.request('POST', `/api/v1/namespaces/${param.namespace}/secrets`, {
      query: { fieldManager: param.fieldManager },
      body: param.body,
    });
  }
  deleteNamespacedSecret(param: { name: string; namespace: string }): Promise<V1Status> {
    return this.transport.request('DELETE', `/api/v1/namespaces/${param.namespace}/secrets/${param.name}`);
  }
  deleteNamespacedService(param: { name: string; namespace: string }): Promise<V1Status> {
    return this.transport.request('DELETE', `/api/v1/namespaces/${param.namespace}/services/${param.name}`);
  }
  listNamespacedSecret(param: { namespace: string; labelSelector?: string }): Promise<V1SecretList> {
    return this.transport.request('GET', `/api/v1/namespaces/${param.namespace}/secrets`, {
      query: withSelector(param.labelSelector),
    });
  }
  listSecretForAllNamespaces(param: { labelSelector?: string }): Promise<V1SecretList> {
    return this.transport.request('GET', '/api/v1/secrets', { query: withSelector(param.labelSelector) });
  }
  listPersistentVolume(param: { labelSelector?: string }): Promise<V1PersistentVolumeList> {
    return this.transport.request('GET', '/api/v1/persistentvolumes', {
      query: withSelector(param.labelSelector),
    });
  }
  /** A merge patch of the PersistentVolume. */
  patchPersistentVolume(param: { name: string; body: object }): Promise<V1PersistentVolume> {
    return this.transport.request('PATCH', `/api/v1/persistentvolumes/${param.name}`, {
      body: param.body,
      contentType: MERGE_PATCH,
    });
  }
  deletePersistentVolume(param: { name: string }): Promise<V1Status> {
    return this.transport.request('DELETE', `/api/v1/persistentvolumes/${param.name}`);
  }
}

export class AppsApi {
  private readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }
  deleteNamespacedDeployment(param: {
    name: string;
    namespace: string;
    propagationPolicy?: string;
  }): Promise<V1Status> {
    return this.transport.request(
      'DELETE',
      `/apis/apps/v1/namespaces/${param.namespace}/deployments/${param.name}`,
      withPropagationPolicy(param.propagationPolicy),
    );
  }
}

export class CustomObjectsApi {
  private readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }
  listClusterCustomObject(param: CustomObjectRef & { labelSelector?: string }): Promise<object> {
    return this.transport.request('GET', customPath(param), { query: withSelector(param.labelSelector) });
  }
  listNamespacedCustomObject(
    param: CustomObjectRef & { namespace: string; labelSelector?: string },
  ): Promise<object> {
    return this.transport.request('GET', customPath(param), { query: withSelector(param.labelSelector) });
  }
  getNamespacedCustomObject(param: CustomObjectRef & { namespace: string; name: string }): Promise<object> {
    return this.transport.request('GET', customPath(param));
  }
  deleteNamespacedCustomObject(
    param: CustomObjectRef & { namespace: string; name: string; propagationPolicy?: string },
  ): Promise<object> {
    return this.transport.request(
      'DELETE',
      customPath(param),
      withPropagationPolicy(param.propagationPolicy),
    );
  }
  /** A merge patch of the object. */
  patchNamespacedCustomObject(
    param: CustomObjectRef & { namespace: string; name: string; body: object },
  ): Promise<object> {
    return this.transport.request('PATCH', customPath(param), { body: param.body, contentType: MERGE_PATCH });
  }
  /** A merge patch of the status subresource. */
  patchNamespacedCustomObjectStatus(
    param: CustomObjectRef & { namespace: string; name: string; body: object },
  ): Promise<object> {
    return this.transport.request('PATCH', `${customPath(param)}/status`, {
      body: param.body,
      contentType: MERGE_PATCH,
    });
  }
}

export class CoordinationApi {
  private readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }
  private path(namespace: string, name?: string): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases${name === undefined ? '' : `/${name}`}`;
  }
  readNamespacedLease(param: { name: string; namespace: string }): Promise<V1Lease> {
    return this.transport.request('GET', this.path(param.namespace, param.name));
  }
  createNamespacedLease(param: { namespace: string; body: V1Lease }): Promise<V1Lease> {
    return this.transport.request('POST', this.path(param.namespace), { body: param.body });
  }
  replaceNamespacedLease(param: { name: string; namespace: string; body: V1Lease }): Promise<V1Lease> {
    return this.transport.request('PUT', this.path(param.namespace, param.name), { body: param.body });
  }
}

/** An events.k8s.io/v1 Event as the operator writes it (eventTime as an RFC 3339 string with microseconds). */
export interface EventBody {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: string;
  regarding: { apiVersion: string; kind: string; name: string; namespace: string; uid?: string };
}

export class EventsApi {
  private readonly transport: Transport;
  constructor(transport: Transport) {
    this.transport = transport;
  }
  createNamespacedEvent(param: { namespace: string; body: EventBody }): Promise<EventsV1Event> {
    return this.transport.request('POST', `/apis/events.k8s.io/v1/namespaces/${param.namespace}/events`, {
      body: param.body,
    });
  }
}

/** The operator's API clients of one cluster, over one transport (one connection pool). */
export interface ApiClients {
  readonly transport: Transport;
  readonly objects: ObjectApplier;
  readonly core: CoreApi;
  readonly apps: AppsApi;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationApi;
  readonly events: EventsApi;
  /** GET of a collection (caches list through this). */
  list<T extends KubernetesObject>(path: string, labelSelector?: string): Promise<KubernetesListObject<T>>;
}

export function apiClients(access: ClusterAccess, options: { onRequest?: RequestObserver } = {}): ApiClients {
  const transport = new Transport(access, options);
  return {
    transport,
    objects: new ObjectApplier(transport),
    core: new CoreApi(transport),
    apps: new AppsApi(transport),
    custom: new CustomObjectsApi(transport),
    coordination: new CoordinationApi(transport),
    events: new EventsApi(transport),
    list: (path, labelSelector) => transport.request('GET', path, { query: withSelector(labelSelector) }),
  };
}

/** An RFC 3339 time with microseconds (the MicroTime format of Events and Leases). */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/Z$/, '000Z');
}
