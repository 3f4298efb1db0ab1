/**
 * Tier defaults and the license state the service acts on (docs/license.md). Pure functions: the caller
 * supplies the clock, the trial start and the persisted high-water mark.
 */
import {
  FEATURE_KEYS,
  type FeatureKey,
  type LicensePayload,
  type LicenseQuotas,
  type LicenseStatus,
  type SkuTier,
} from './license-file.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const TRIAL_DURATION_DAYS = 30;
export const TRIAL_QUOTAS: Readonly<LicenseQuotas> = Object.freeze({ max_datasources: 3, max_users: 5 });
/** How far the clock may fall behind the latest time seen before the license counts as expired. */
export const CLOCK_ROLLBACK_TOLERANCE_MS = DAY_MS;

const ALL_ON: Readonly<Record<FeatureKey, boolean>> = {
  embedding_metrics: true,
  batch_confirm: true,
  audit_export: true,
  sample_data: true,
};

export const TIER_DEFAULT_FEATURES: Readonly<Record<SkuTier, Readonly<Record<FeatureKey, boolean>>>> = Object.freeze({
  trial_mock: ALL_ON,
  lite: { embedding_metrics: true, batch_confirm: false, audit_export: false, sample_data: false },
  pro: { ...ALL_ON, sample_data: false },
  enterprise: { ...ALL_ON, sample_data: false },
});

export type ComputedLicenseStatus = 'active' | 'expired' | 'not_yet_valid' | 'suspended' | 'revoked';

export interface LicenseState {
  sku_tier: SkuTier;
  license_status: LicenseStatus;
  computed_status: ComputedLicenseStatus;
  expires_at: string | null;
  customer_name: string | null;
  quotas: LicenseQuotas;
  features_enabled: Record<FeatureKey, boolean>;
  is_expired: boolean;
  days_remaining: number | null;
}

export interface LicenseStateInput {
  /** The verified license in force; null = the built-in trial. */
  payload: LicensePayload | null;
  /** When the built-in trial started (first start of the service). */
  trialStartedAt: Date;
  now: Date;
  /** The latest time the service has seen (persisted); null when none yet. */
  highWaterMark: Date | null;
}

/** The feature switches in force: the tier defaults, overridden by the payload's `features`. Null = the built-in trial. */
export function effectiveFeatures(
  payload: Pick<LicensePayload, 'sku_tier' | 'features'> | null,
): Record<FeatureKey, boolean> {
  const defaults = TIER_DEFAULT_FEATURES[payload?.sku_tier ?? 'trial_mock'];
  const features = {} as Record<FeatureKey, boolean>;
  for (const key of FEATURE_KEYS) features[key] = payload?.features[key] ?? defaults[key];
  return features;
}

/**
 * The license state (docs/license.md). Precedence of `computed_status`: revoked > suspended > expired
 * (clock rollback or past `expires_at`) > not_yet_valid > active. The vendor's status wins because time
 * cannot cure it; `is_expired` and `days_remaining` still report the dates whatever the status.
 *
 * Clock rollback: the "latest time seen" is the newest of `highWaterMark`, the license's signed
 * `issued_at` (the vendor's clock had reached it) and, for the built-in trial, `trialStartedAt`.
 * A clock more than 24 h behind it makes the license expired until the clock catches up.
 */
/** The tier a license (or, without one, the built-in trial) grants; it does not depend on dates or status. */
export function tierOf(payload: LicensePayload | null): SkuTier {
  return payload?.sku_tier ?? 'trial_mock';
}

export function computeLicenseState(input: LicenseStateInput): LicenseState {
  const { payload, now } = input;
  const nowMs = now.getTime();

  const licenseStatus: LicenseStatus = payload?.status ?? 'active';
  const seenMs: number[] = [payload === null ? input.trialStartedAt.getTime() : Date.parse(payload.issued_at)];
  if (input.highWaterMark !== null) seenMs.push(input.highWaterMark.getTime());
  const clockRolledBack = nowMs < Math.max(...seenMs) - CLOCK_ROLLBACK_TOLERANCE_MS;

  const expiresMs =
    payload === null
      ? input.trialStartedAt.getTime() + TRIAL_DURATION_DAYS * DAY_MS
      : payload.expires_at === null
        ? null
        : Date.parse(payload.expires_at);
  // The trial has no "not yet valid": it starts when the service first starts, and a clock a little
  // behind that (another instance's skew) is covered by the rollback tolerance.
  const notBeforeMs = payload === null ? null : Date.parse(payload.not_before);

  const pastExpiry = expiresMs !== null && nowMs >= expiresMs;
  const isExpired = clockRolledBack || pastExpiry;

  let computedStatus: ComputedLicenseStatus;
  if (licenseStatus === 'revoked') computedStatus = 'revoked';
  else if (licenseStatus === 'suspended') computedStatus = 'suspended';
  else if (isExpired) computedStatus = 'expired';
  else if (notBeforeMs !== null && nowMs < notBeforeMs) computedStatus = 'not_yet_valid';
  else computedStatus = 'active';

  let daysRemaining: number | null;
  if (isExpired)
    daysRemaining = 0; // also for a perpetual license when the clock was rolled back
  else if (expiresMs === null) daysRemaining = null;
  else daysRemaining = Math.ceil((expiresMs - nowMs) / DAY_MS);

  return {
    sku_tier: tierOf(payload),
    license_status: licenseStatus,
    computed_status: computedStatus,
    expires_at: expiresMs === null ? null : new Date(expiresMs).toISOString(),
    customer_name: payload?.customer_name ?? null,
    quotas: payload === null ? { ...TRIAL_QUOTAS } : { ...payload.quotas },
    features_enabled: effectiveFeatures(payload),
    is_expired: isExpired,
    days_remaining: daysRemaining,
  };
}
