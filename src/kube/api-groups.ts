/**
 * The methods of the official client's CoreV1Api, BatchV1Api, AppsV1Api, CustomObjectsApi,
 * CoordinationV1Api and EventsV1Api that the operator, its CLI, the local cluster and the tests
 * call, with the same names and parameter objects, on the operator's transport. Answers are the API
 * server's JSON as is: timestamps stay strings (the client's types say Date), every field is kept.
 */
import type {
  AuthenticationV1TokenRequest,
  V1EndpointSliceList,
  V1CustomResourceDefinition,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Role,
  V1RoleBindingList,
  V1SubjectAccessReview,
  CoreV1Event,
  CoreV1EventList,
  EventsV1Event,
  EventsV1EventList,
  V1ConfigMap,
  V1ConfigMapList,
  V1Deployment,
  V1Job,
  V1JobList,
  V1Lease,
  V1Namespace,
  V1NamespaceList,
  V1Node,
  V1NodeList,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1PersistentVolumeClaimList,
  V1PersistentVolumeList,
  V1Pod,
  V1PodList,
  V1Secret,
  V1SecretList,
  V1Service,
  V1ServiceAccount,
  V1ServiceList,
} from '@kubernetes/client-node';
import {
  collectionPath,
  resourceVerbs,
  type DeleteParams,
  type ListParams,
  type WriteParams,
} from './resource-verbs.ts';
import type { Transport } from './transport.ts';

const CORE = '/api/v1';

export function coreApi(transport: Transport) {
  const namespaces = resourceVerbs(transport, CORE, 'namespaces', false);
  const secrets = resourceVerbs(transport, CORE, 'secrets', true);
  const services = resourceVerbs(transport, CORE, 'services', true);
  const serviceAccounts = resourceVerbs(transport, CORE, 'serviceaccounts', true);
  const pods = resourceVerbs(transport, CORE, 'pods', true);
  const configMaps = resourceVerbs(transport, CORE, 'configmaps', true);
  const volumes = resourceVerbs(transport, CORE, 'persistentvolumes', false);
  const claims = resourceVerbs(transport, CORE, 'persistentvolumeclaims', true);
  const nodes = resourceVerbs(transport, CORE, 'nodes', false);
  const events = resourceVerbs(transport, CORE, 'events', true);
  return {
    readNamespace: namespaces.read<V1Namespace>(),
    listNamespace: namespaces.list<V1NamespaceList>(),
    createNamespace: namespaces.create<V1Namespace>(),
    patchNamespace: namespaces.patch<V1Namespace>(),
    deleteNamespace: namespaces.delete(),

    readNamespacedSecret: secrets.read<V1Secret>(),
    listNamespacedSecret: secrets.list<V1SecretList>(),
    listSecretForAllNamespaces: secrets.listAll<V1SecretList>(),
    /** Fails with 409 AlreadyExists: the one write that never replaces a Secret. */
    createNamespacedSecret: secrets.create<V1Secret>(),
    deleteNamespacedSecret: secrets.delete(),

    readNamespacedService: services.read<V1Service>(),
    listNamespacedService: services.list<V1ServiceList>(),
    createNamespacedService: services.create<V1Service>(),
    deleteNamespacedService: services.delete(),

    readNamespacedServiceAccount: serviceAccounts.read<V1ServiceAccount>(),
    createNamespacedServiceAccount: serviceAccounts.create<V1ServiceAccount>(),
    createNamespacedServiceAccountToken: serviceAccounts.createIn<AuthenticationV1TokenRequest>('token'),

    readNamespacedPod: pods.read<V1Pod>(),
    listNamespacedPod: pods.list<V1PodList>(),
    listPodForAllNamespaces: pods.listAll<V1PodList>(),
    createNamespacedPod: pods.create<V1Pod>(),
    patchNamespacedPod: pods.patch<V1Pod>(),
    deleteNamespacedPod: pods.delete<V1Pod>(),
    readNamespacedPodLog: (param: {
      name: string;
      namespace: string;
      container?: string;
      previous?: boolean;
      tailLines?: number;
      /** Each line after the container runtime's timestamp of it (RFC 3339, nanoseconds) and a space. */
      timestamps?: boolean;
    }): Promise<string> =>
      transport.requestText('GET', `${collectionPath(CORE, 'pods', param.namespace)}/${param.name}/log`, {
        query: {
          container: param.container,
          previous: param.previous,
          tailLines: param.tailLines,
          timestamps: param.timestamps,
        },
      }),

    readNamespacedConfigMap: configMaps.read<V1ConfigMap>(),
    listNamespacedConfigMap: configMaps.list<V1ConfigMapList>(),
    createNamespacedConfigMap: configMaps.create<V1ConfigMap>(),

    readPersistentVolume: volumes.read<V1PersistentVolume>(),
    listPersistentVolume: volumes.list<V1PersistentVolumeList>(),
    createPersistentVolume: volumes.create<V1PersistentVolume>(),
    patchPersistentVolume: volumes.patch<V1PersistentVolume>(),
    deletePersistentVolume: volumes.delete<V1PersistentVolume>(),

    readNamespacedPersistentVolumeClaim: claims.read<V1PersistentVolumeClaim>(),
    listNamespacedPersistentVolumeClaim: claims.list<V1PersistentVolumeClaimList>(),
    createNamespacedPersistentVolumeClaim: claims.create<V1PersistentVolumeClaim>(),
    deleteNamespacedPersistentVolumeClaim: claims.delete<V1PersistentVolumeClaim>(),

    readNode: nodes.read<V1Node>(),
    listNode: nodes.list<V1NodeList>(),
    createNode: nodes.create<V1Node>(),
    patchNodeStatus: nodes.patch<V1Node>('status'),
    deleteNode: nodes.delete(),

    listNamespacedEvent: events.list<CoreV1EventList>(),
    createNamespacedEvent: events.create<CoreV1Event>(),
  };
}

export function batchApi(transport: Transport) {
  const jobs = resourceVerbs(transport, '/apis/batch/v1', 'jobs', true);
  return {
    readNamespacedJob: jobs.read<V1Job>(),
    listNamespacedJob: jobs.list<V1JobList>(),
    createNamespacedJob: jobs.create<V1Job>(),
    patchNamespacedJob: jobs.patch<V1Job>(),
    deleteNamespacedJob: jobs.delete(),
  };
}

export function appsApi(transport: Transport) {
  const deployments = resourceVerbs(transport, '/apis/apps/v1', 'deployments', true);
  return {
    readNamespacedDeployment: deployments.read<V1Deployment>(),
    deleteNamespacedDeployment: deployments.delete(),
  };
}

export function rbacApi(transport: Transport) {
  const prefix = '/apis/rbac.authorization.k8s.io/v1';
  const roles = resourceVerbs(transport, prefix, 'roles', true);
  const roleBindings = resourceVerbs(transport, prefix, 'rolebindings', true);
  const clusterRoles = resourceVerbs(transport, prefix, 'clusterroles', false);
  const clusterRoleBindings = resourceVerbs(transport, prefix, 'clusterrolebindings', false);
  return {
    listRoleBindingForAllNamespaces: roleBindings.listAll<V1RoleBindingList>(),
    deleteNamespacedRoleBinding: roleBindings.delete(),
    readNamespacedRole: roles.read<V1Role>(),
    deleteNamespacedRole: roles.delete(),
    readClusterRole: clusterRoles.read<V1ClusterRole>(),
    readClusterRoleBinding: clusterRoleBindings.read<V1ClusterRoleBinding>(),
    deleteClusterRoleBinding: clusterRoleBindings.delete(),
  };
}

/** Access reviews: asked, never stored (not counted as writes). */
export function authorizationApi(transport: Transport) {
  const reviews = resourceVerbs(transport, '/apis/authorization.k8s.io/v1', 'subjectaccessreviews', false);
  return { createSubjectAccessReview: reviews.create<V1SubjectAccessReview>() };
}

export function apiextensionsApi(transport: Transport) {
  const crds = resourceVerbs(transport, '/apis/apiextensions.k8s.io/v1', 'customresourcedefinitions', false);
  return {
    readCustomResourceDefinition: crds.read<V1CustomResourceDefinition>(),
    deleteCustomResourceDefinition: crds.delete(),
  };
}

export function discoveryApi(transport: Transport) {
  const slices = resourceVerbs(transport, '/apis/discovery.k8s.io/v1', 'endpointslices', true);
  return { listNamespacedEndpointSlice: slices.list<V1EndpointSliceList>() };
}

export function coordinationApi(transport: Transport) {
  const leases = resourceVerbs(transport, '/apis/coordination.k8s.io/v1', 'leases', true);
  return {
    readNamespacedLease: leases.read<V1Lease>(),
    createNamespacedLease: leases.create<V1Lease>(),
    replaceNamespacedLease: leases.replace<V1Lease>(),
    deleteNamespacedLease: leases.delete(),
  };
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

export function eventsApi(transport: Transport) {
  const events = resourceVerbs(transport, '/apis/events.k8s.io/v1', 'events', true);
  return {
    createNamespacedEvent: events.create<EventsV1Event, EventBody>(),
    listNamespacedEvent: events.list<EventsV1EventList>(),
  };
}

interface CustomObjectRef {
  group: string;
  version: string;
  plural: string;
}

/** Custom objects by group, version and plural; answers are plain objects, as the client declares them. */
export function customObjectsApi(transport: Transport) {
  const prefix = (ref: CustomObjectRef) => `/apis/${ref.group}/${ref.version}`;
  const namespaced = (ref: CustomObjectRef) => resourceVerbs(transport, prefix(ref), ref.plural, true);
  const clusterScoped = (ref: CustomObjectRef) => resourceVerbs(transport, prefix(ref), ref.plural, false);
  type Named = CustomObjectRef & { name: string };
  type NamespacedName = Named & { namespace: string };
  type Body = { body: object } & WriteParams;
  return {
    listClusterCustomObject: (param: CustomObjectRef & ListParams) =>
      namespaced(param).listAll<object>()(param),
    listNamespacedCustomObject: (param: CustomObjectRef & ListParams & { namespace: string }) =>
      namespaced(param).list<object>()(param),
    getNamespacedCustomObject: (param: NamespacedName) => namespaced(param).read<object>()(param),
    getClusterCustomObject: (param: Named) => clusterScoped(param).read<object>()(param),
    createNamespacedCustomObject: (param: CustomObjectRef & Body & { namespace: string }) =>
      namespaced(param).create<object>()(param),
    createClusterCustomObject: (param: CustomObjectRef & Body) =>
      clusterScoped(param).create<object>()(param),
    replaceNamespacedCustomObject: (param: NamespacedName & Body) =>
      namespaced(param).replace<object>()(param),
    patchNamespacedCustomObject: (param: NamespacedName & Body) => namespaced(param).patch<object>()(param),
    patchNamespacedCustomObjectStatus: (param: NamespacedName & Body) =>
      namespaced(param).patch<object>('status')(param),
    patchNamespacedCustomObjectScale: (param: NamespacedName & Body) =>
      namespaced(param).patch<object>('scale')(param),
    deleteNamespacedCustomObject: (param: NamespacedName & DeleteParams) =>
      namespaced(param).delete<object>()(param),
  };
}

export type CoreApi = ReturnType<typeof coreApi>;
export type BatchApi = ReturnType<typeof batchApi>;
export type AppsApi = ReturnType<typeof appsApi>;
export type RbacApi = ReturnType<typeof rbacApi>;
export type ApiextensionsApi = ReturnType<typeof apiextensionsApi>;
export type AuthorizationApi = ReturnType<typeof authorizationApi>;
export type DiscoveryApi = ReturnType<typeof discoveryApi>;
export type CoordinationApi = ReturnType<typeof coordinationApi>;
export type EventsApi = ReturnType<typeof eventsApi>;
export type CustomObjectsApi = ReturnType<typeof customObjectsApi>;
