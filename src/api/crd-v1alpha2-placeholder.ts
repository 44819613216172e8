/**
 * TEMPORARY stand-in for src/api/v1alpha2's `miniClusterV1alpha2CrdVersion` until that branch is merged:
 * the v1alpha1 schema served under the name v1alpha2 (stored), so the two-version CRD and its
 * conversion webhook can be built and tested. Deleted when the real v1alpha2 schema is wired.
 */
import { PRINTER_COLUMNS, SCALE_SUBRESOURCE, rootSchemaOf } from './crd.ts';
import type { CrdVersionOf, MiniClusterSubresources } from './crd.ts';
import { MiniClusterSchema, MiniClusterSpecSchema } from './schema.ts';
import { MiniClusterStatusSchema } from './status-schema.ts';

export function miniClusterV1alpha2CrdVersion(): CrdVersionOf<MiniClusterSubresources> {
  return {
    name: 'v1alpha2',
    served: true,
    storage: true,
    schema: {
      openAPIV3Schema: rootSchemaOf(MiniClusterSchema, MiniClusterSpecSchema, MiniClusterStatusSchema),
    },
    subresources: { status: {}, scale: { ...SCALE_SUBRESOURCE } },
    additionalPrinterColumns: PRINTER_COLUMNS.map((column) => ({ ...column })),
  };
}

/** The stand-in converter: the objects are alike in both versions, so only apiVersion changes. */
export function convertMiniCluster(obj: unknown, desiredApiVersion: string): object {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new Error('expected a MiniCluster object');
  }
  return { ...(obj as Record<string, unknown>), apiVersion: desiredApiVersion };
}
