/**
 * The verbs on one kind of resource, by path: every method of the API groups (api-groups.ts) is one
 * of these, typed with the answer the official client declares for it. Patches are merge patches,
 * or JSON patches when the body is an array (a merge patch is always an object).
 */
import type { V1Status } from '@kubernetes/client-node';
import type { Query, Transport } from './transport.ts';

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/** Where a resource is served: /api/v1 for the core group, /apis/<group>/<version> else. */
export function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/**
 * The path of a collection under an API prefix (`/api/v1`, `/apis/batch/v1`): in one namespace, or
 * (namespace undefined) in all of them or cluster-wide.
 */
export function collectionPath(prefix: string, resource: string, namespace?: string): string {
  return namespace === undefined ? `${prefix}/${resource}` : `${prefix}/namespaces/${namespace}/${resource}`;
}

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  limit?: number;
  _continue?: string;
}

export interface WriteParams {
  fieldManager?: string;
  /** Strict, Warn or Ignore: what the API server does with unknown or duplicate fields. */
  fieldValidation?: string;
  /** 'All': validated and admitted, nothing stored. */
  dryRun?: string;
}

export interface DeleteParams {
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
}

/** Where one object is: a name, and a namespace for namespaced resources. */
type At<Namespaced extends boolean> = Namespaced extends true
  ? { name: string; namespace: string }
  : { name: string };
type In<Namespaced extends boolean> = Namespaced extends true ? { namespace: string } : object;
/** A list's parameters: a namespace is needed for namespaced resources, nothing for the others. */
type ListArgs<Namespaced extends boolean> = Namespaced extends true
  ? [param: { namespace: string } & ListParams]
  : [param?: ListParams];

function listQuery(param: ListParams): Query {
  const { labelSelector, fieldSelector, resourceVersion, limit, _continue } = param;
  return { labelSelector, fieldSelector, resourceVersion, limit, continue: _continue };
}

function writeQuery(param: WriteParams): Query {
  return { fieldManager: param.fieldManager, fieldValidation: param.fieldValidation, dryRun: param.dryRun };
}

/** The verbs on `resource` (its plural, `pods`) under `prefix`, namespaced or cluster-scoped. */
export function resourceVerbs<Namespaced extends boolean>(
  transport: Transport,
  prefix: string,
  resource: string,
  namespaced: Namespaced,
) {
  const collection = (param: object) =>
    collectionPath(prefix, resource, namespaced ? (param as { namespace: string }).namespace : undefined);
  const object = (param: { name: string }, subresource?: string) =>
    `${collection(param)}/${param.name}${subresource === undefined ? '' : `/${subresource}`}`;
  return {
    read:
      <T>(subresource?: string) =>
      (param: At<Namespaced>): Promise<T> =>
        transport.request('GET', object(param, subresource)),
    /** In one namespace (or cluster-wide). */
    list:
      <T>() =>
      (...[param = {}]: ListArgs<Namespaced>): Promise<T> =>
        transport.request('GET', collection(param), { query: listQuery(param) }),
    /** In every namespace. */
    listAll:
      <T>() =>
      (param: ListParams = {}): Promise<T> =>
        transport.request('GET', collectionPath(prefix, resource), { query: listQuery(param) }),
    create:
      <T, Body = T>() =>
      (param: In<Namespaced> & WriteParams & { body: Body }): Promise<T> =>
        transport.request('POST', collection(param), { query: writeQuery(param), body: param.body }),
    /** POST to a subresource of one object (a ServiceAccount's token). */
    createIn:
      <T>(subresource: string) =>
      (param: At<Namespaced> & WriteParams & { body: T }): Promise<T> =>
        transport.request('POST', object(param, subresource), { query: writeQuery(param), body: param.body }),
    replace:
      <T>(subresource?: string) =>
      (param: At<Namespaced> & WriteParams & { body: T }): Promise<T> =>
        transport.request('PUT', object(param, subresource), { query: writeQuery(param), body: param.body }),
    patch:
      <T>(subresource?: string) =>
      (param: At<Namespaced> & WriteParams & { body: object }): Promise<T> =>
        transport.request('PATCH', object(param, subresource), {
          query: writeQuery(param),
          body: param.body,
          contentType: Array.isArray(param.body) ? JSON_PATCH : MERGE_PATCH,
        }),
    delete:
      <T = V1Status>() =>
      (param: At<Namespaced> & DeleteParams): Promise<T> =>
        transport.request('DELETE', object(param), {
          query: { propagationPolicy: param.propagationPolicy, gracePeriodSeconds: param.gracePeriodSeconds },
        }),
  };
}
