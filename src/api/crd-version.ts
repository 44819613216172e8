/**
 * The v1alpha2 version entry of the MiniCluster CRD, shaped like the one crd.ts builds for v1alpha1:
 * its structural schema with the CEL rules, the status and scale subresources and the printer
 * columns. It is the storage version; the multi-version CRD (with the conversion webhook) is
 * assembled from this and v1alpha1's entry where the webhook is wired.
 */
import { PRINTER_COLUMNS, SCALE_SUBRESOURCE, rootSchemaOf } from './shared/crd.ts';
import type { CustomResourceDefinition } from './shared/crd.ts';
import { MiniClusterSchema, MiniClusterSpecSchema, MiniClusterStatusSchema } from './schema.ts';
import { VERSION } from './group.ts';

/** One entry of a MiniCluster CRD's `spec.versions`. */
export type MiniClusterCrdVersion = CustomResourceDefinition['spec']['versions'][number];

/** The v1alpha2 entry: served, stored. Pure: the same object on every call. */
export function miniClusterCrdVersion(): MiniClusterCrdVersion {
  return {
    name: VERSION,
    served: true,
    storage: true,
    schema: {
      openAPIV3Schema: rootSchemaOf(MiniClusterSchema, MiniClusterSpecSchema, MiniClusterStatusSchema),
    },
    subresources: { status: {}, scale: { ...SCALE_SUBRESOURCE } },
    additionalPrinterColumns: PRINTER_COLUMNS.map((column) => ({ ...column })),
  };
}
