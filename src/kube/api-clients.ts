/**
 * The one Kubernetes client of the operator, its CLI, bursting, the local cluster and the tests: the
 * official client's API groups (api-groups.ts, same method names and parameters) and its generic
 * object API (server-side apply, read, create, merge patch and delete of an object by its kind) on
 * the operator's own transport (transport.ts), plus list by path for the caches. Only the official
 * client's types are imported: its code never loads on these paths.
 */
import type { KubernetesListObject, KubernetesObject, V1Status } from '@kubernetes/client-node';
import {
  apiextensionsApi,
  appsApi,
  authorizationApi,
  batchApi,
  coordinationApi,
  coreApi,
  customObjectsApi,
  discoveryApi,
  eventsApi,
  rbacApi,
  type ApiextensionsApi,
  type AppsApi,
  type AuthorizationApi,
  type BatchApi,
  type CoordinationApi,
  type CoreApi,
  type CustomObjectsApi,
  type DiscoveryApi,
  type EventsApi,
  type RbacApi,
} from './api-groups.ts';
import type { ClusterAccess } from './cluster-access.ts';
import { apiPrefix, collectionPath } from './resource-verbs.ts';
import { Transport, type RequestObserver } from './transport.ts';
import { DEFAULT_NAMESPACE } from '../api/index.ts';

export { collectionPath } from './resource-verbs.ts';
export type {
  ApiextensionsApi,
  AppsApi,
  AuthorizationApi,
  BatchApi,
  CoordinationApi,
  CoreApi,
  CustomObjectsApi,
  DiscoveryApi,
  EventBody,
  EventsApi,
  RbacApi,
} from './api-groups.ts';

const APPLY_PATCH = 'application/apply-patch+yaml';
const MERGE_PATCH = 'application/merge-patch+json';

/** The resource of a kind, as discovery lists it. */
interface ResourceInfo {
  readonly name: string;
  readonly namespaced: boolean;
}

/** An object's identity: what reads and deletes need of it. */
type ObjectRef = Pick<KubernetesObject, 'apiVersion' | 'kind'> & {
  metadata?: { name?: string; namespace?: string };
};

/** Requests on objects of any kind as their JSON, resource paths found through (cached) discovery. */
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
    return this.transport.request<T>('PATCH', await this.objectPath(object), {
      query: { fieldManager, force: 'true', ...(dryRun ? { dryRun: 'All' } : {}) },
      // JSON is YAML: the API server takes it as an apply patch.
      body: JSON.stringify(object),
      contentType: APPLY_PATCH,
    });
  }

  async read<T extends KubernetesObject>(object: ObjectRef): Promise<T> {
    return this.transport.request<T>('GET', await this.objectPath(object));
  }

  async create<T extends KubernetesObject>(object: T): Promise<T> {
    const path = await this.objectPath(object);
    return this.transport.request<T>('POST', path.slice(0, path.lastIndexOf('/')), { body: object });
  }

  /** A merge patch of the object with `object`'s fields. */
  async patch<T extends KubernetesObject>(object: T): Promise<T> {
    return this.transport.request<T>('PATCH', await this.objectPath(object), {
      body: object,
      contentType: MERGE_PATCH,
    });
  }

  async delete(object: ObjectRef): Promise<V1Status> {
    return this.transport.request<V1Status>('DELETE', await this.objectPath(object));
  }

  /** The object's path: /api/v1/namespaces/ns/configmaps/name, /apis/g/v/... */
  async objectPath(object: ObjectRef): Promise<string> {
    const { apiVersion, kind } = object;
    const name = object.metadata?.name;
    if (!apiVersion || !kind || !name) {
      throw new Error('an object needs apiVersion, kind and metadata.name');
    }
    let resource = (await this.resources(apiVersion)).get(kind);
    if (!resource) {
      // Discovered before the kind's CRD was added to its group: ask again, once.
      this.discovered.delete(apiVersion);
      resource = (await this.resources(apiVersion)).get(kind);
    }
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

/** The API clients of one cluster, over one transport (one connection pool). */
export interface ApiClients {
  readonly transport: Transport;
  readonly objects: ObjectApplier;
  readonly core: CoreApi;
  readonly batch: BatchApi;
  /** Deployments: the services pod of MiniClusters with `spec.services`. */
  readonly apps: AppsApi;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationApi;
  readonly events: EventsApi;
  readonly rbac: RbacApi;
  readonly apiextensions: ApiextensionsApi;
  readonly authorization: AuthorizationApi;
  readonly discovery: DiscoveryApi;
  /** GET of a collection (caches list through this). */
  list<T extends KubernetesObject>(path: string, labelSelector?: string): Promise<KubernetesListObject<T>>;
}

export interface ApiClientsOptions {
  readonly onRequest?: RequestObserver;
  /** How long a request's connection may stay silent before it fails (REQUEST_IDLE_TIMEOUT_MS). */
  readonly requestIdleTimeoutMs?: number;
}

export function apiClients(access: ClusterAccess, options: ApiClientsOptions = {}): ApiClients {
  const transport = new Transport(access, options);
  return {
    transport,
    objects: new ObjectApplier(transport),
    core: coreApi(transport),
    batch: batchApi(transport),
    apps: appsApi(transport),
    custom: customObjectsApi(transport),
    coordination: coordinationApi(transport),
    events: eventsApi(transport),
    rbac: rbacApi(transport),
    apiextensions: apiextensionsApi(transport),
    authorization: authorizationApi(transport),
    discovery: discoveryApi(transport),
    list: (path, labelSelector) => transport.request('GET', path, { query: { labelSelector } }),
  };
}

/** An RFC 3339 time with microseconds (the MicroTime format of Events and Leases). */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/Z$/, '000Z');
}
