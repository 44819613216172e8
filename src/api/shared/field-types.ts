/**
 * The static types of the field schemas both versions share; each version's own types are in
 * ../schema.ts (the hub) and ../v1alpha1/schema.ts.
 */
import type { Static } from '@sinclair/typebox';
import type { VolumeSchema } from './container-fields.ts';
import type { BurstClusterSchema, LeadBrokerExposureSchema, LeadBrokerSchema } from './flux-fields.ts';
import type { ArchiveSchema, ObjectMetaSchema, TolerationSchema } from './spec-fields.ts';
import type { StorageVolumeSchema } from './storage-schema.ts';

export type ObjectMeta = Static<typeof ObjectMetaSchema>;
export type Toleration = Static<typeof TolerationSchema>;
export type ArchiveSpec = Static<typeof ArchiveSchema>;
export type Volume = Static<typeof VolumeSchema>;
export type StorageVolume = Static<typeof StorageVolumeSchema>;
export type BurstCluster = Static<typeof BurstClusterSchema>;
export type LeadBroker = Static<typeof LeadBrokerSchema>;
export type LeadBrokerExposure = Static<typeof LeadBrokerExposureSchema>;
