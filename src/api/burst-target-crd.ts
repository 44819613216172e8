/**
 * The BurstTarget CustomResourceDefinition (apiextensions.k8s.io/v1), built from its schema with
 * the same structural conversion as the MiniCluster CRD (crd.ts `toStructuralSchema`).
 */
import { CATEGORIES } from './group.ts';
import {
  BURST_TARGET_CRD_NAME,
  BURST_TARGET_KIND,
  BURST_TARGET_LIST_KIND,
  BURST_TARGET_PLURAL,
  BURST_TARGET_SHORT_NAMES,
  BURST_TARGET_SINGULAR,
  BURST_TARGET_VERSION,
  BurstTargetSchema,
  BurstTargetSpecSchema,
  BurstTargetStatusSchema,
  CONDITION_CONNECTED,
} from './burst-target-schema.ts';
import { namespacedCrd, rootSchemaOf } from './shared/crd.ts';
import type { CustomResourceDefinitionOf, JsonSchemaProps, PrinterColumn } from './shared/crd.ts';

/** The BurstTarget CRD: namespaced, status subresource, no scale subresource. */
export type BurstTargetCustomResourceDefinition = CustomResourceDefinitionOf<{
  status: Record<string, never>;
}>;

/** Columns of `kubectl get bursttargets` (priority 1: only with `-o wide`). */
export const BURST_TARGET_PRINTER_COLUMNS: PrinterColumn[] = [
  {
    name: 'Provider',
    type: 'string',
    jsonPath: '.spec.provider',
    description: 'kubeconfig, gke or eks.',
  },
  {
    name: 'Connected',
    type: 'string',
    jsonPath: `.status.conditions[?(@.type=="${CONDITION_CONNECTED}")].status`,
    description: 'Whether the target answered the last check.',
  },
  {
    name: 'Reason',
    type: 'string',
    jsonPath: `.status.conditions[?(@.type=="${CONDITION_CONNECTED}")].reason`,
    description: 'Why the target is (not) connected.',
    priority: 1,
  },
  {
    name: 'Server',
    type: 'string',
    jsonPath: '.status.server',
    description: "The target's API server.",
    priority: 1,
  },
  {
    name: 'Version',
    type: 'string',
    jsonPath: '.status.kubernetesVersion',
    description: "The target's Kubernetes version.",
    priority: 1,
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation.' },
];

function rootSchema(): JsonSchemaProps {
  return rootSchemaOf(BurstTargetSchema, BurstTargetSpecSchema, BurstTargetStatusSchema);
}

/** The BurstTarget CRD. Pure: the same object on every call. */
export function burstTargetCrd(): BurstTargetCustomResourceDefinition {
  return namespacedCrd({
    name: BURST_TARGET_CRD_NAME,
    version: BURST_TARGET_VERSION,
    names: {
      kind: BURST_TARGET_KIND,
      listKind: BURST_TARGET_LIST_KIND,
      plural: BURST_TARGET_PLURAL,
      singular: BURST_TARGET_SINGULAR,
      shortNames: [...BURST_TARGET_SHORT_NAMES],
      categories: [...CATEGORIES],
    },
    schema: rootSchema(),
    subresources: { status: {} },
    printerColumns: BURST_TARGET_PRINTER_COLUMNS,
  });
}
