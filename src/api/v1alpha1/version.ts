/** Identity of v1alpha1, the MiniCluster version the CRD still serves (no longer stores) and converts. */
import { GROUP } from '../group.ts';

export const VERSION_V1ALPHA1 = 'v1alpha1';
export const API_VERSION_V1ALPHA1 = `${GROUP}/${VERSION_V1ALPHA1}`;
