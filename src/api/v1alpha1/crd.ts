/**
 * The MiniCluster CRD as it was before v1alpha2: v1alpha1 alone, served and stored, no conversion.
 * The base of the two-version CRD (../minicluster-crd.ts), and the CRD of the upgrade test.
 */
import { CATEGORIES, CRD_NAME, KIND, LIST_KIND, PLURAL, SHORT_NAMES, SINGULAR } from '../group.ts';
import { namespacedCrd, PRINTER_COLUMNS, rootSchemaOf, SCALE_SUBRESOURCE } from '../shared/crd.ts';
import type { CustomResourceDefinition } from '../shared/crd.ts';
import { StatusFieldsSchema } from '../shared/status-schema.ts';
import { MiniClusterV1alpha1Schema, MiniClusterV1alpha1SpecSchema } from './schema.ts';
import { VERSION_V1ALPHA1 } from './version.ts';

/** The single-version v1alpha1 CRD. Pure: the same object on every call. */
export function miniClusterV1alpha1Crd(): CustomResourceDefinition {
  return namespacedCrd({
    name: CRD_NAME,
    version: VERSION_V1ALPHA1,
    names: {
      kind: KIND,
      listKind: LIST_KIND,
      plural: PLURAL,
      singular: SINGULAR,
      shortNames: [...SHORT_NAMES],
      categories: [...CATEGORIES],
    },
    schema: rootSchemaOf(MiniClusterV1alpha1Schema, MiniClusterV1alpha1SpecSchema, StatusFieldsSchema),
    subresources: { status: {}, scale: { ...SCALE_SUBRESOURCE } },
    printerColumns: PRINTER_COLUMNS,
  });
}
