/**
 * What other modules ask of the license: may a resource be created (quota and license state,
 * checked inside the creating transaction), is a feature switched on, which tier is in force.
 */
import type { Tx } from '../../db/database.js';
import type { FeatureKey, SkuTier } from './license-file.js';

export type QuotaResource = 'users' | 'datasources';

export interface LicenseGate {
  /** Throws 403 license_inactive or quota_exceeded; call inside the transaction that inserts. */
  assertCanCreate(trx: Tx, resource: QuotaResource): Promise<void>;
  /** Throws 403 feature_disabled when the license switches the feature off. */
  assertFeature(feature: FeatureKey): Promise<void>;
  currentTier(): Promise<SkuTier>;
}
