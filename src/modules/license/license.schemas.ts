import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { LICENSE_FILE_EXTENSION, LICENSE_STATUSES, MAX_LICENSE_FILE_BYTES, SKU_TIERS } from './license-file.js';

const SkuTier = Type.Enum(SKU_TIERS, {
  description: 'trial_mock (built-in trial, sample data), lite, pro or enterprise',
});
const Quota = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null = unlimited' });
const NullableTimestamp = (description: string) => Type.Union([Timestamp, Type.Null()], { description });

export const LicenseStatusResponse = Type.Object({
  sku_tier: SkuTier,
  license_status: Type.Enum(LICENSE_STATUSES, {
    description: "The license's own status; active for the built-in trial",
  }),
  computed_status: Type.Enum(['active', 'expired', 'not_yet_valid', 'suspended', 'revoked'], {
    description: 'The status the service acts on: the license status, the dates and the clock-rollback guard',
  }),
  expires_at: NullableTimestamp('End of validity; null for a perpetual license'),
  customer_name: Type.Union([Type.String(), Type.Null()], { description: 'null for the built-in trial' }),
  quotas: Type.Object({ max_datasources: Quota, max_users: Quota }),
  usage: Type.Object({
    datasources: Type.Integer({ minimum: 0, description: 'Data sources, not counting the built-in sample ones' }),
    users: Type.Integer({ minimum: 0, description: 'Users that are not disabled' }),
  }),
  features_enabled: Type.Object({
    embedding_metrics: Type.Boolean({ description: 'The embedding-minibars endpoint' }),
    batch_confirm: Type.Boolean({ description: 'Batch confirmation' }),
    audit_export: Type.Boolean({ description: 'The audit-log export' }),
    sample_data: Type.Boolean({ description: 'The built-in sample catalog' }),
  }),
  is_expired: Type.Boolean(),
  days_remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Whole days left, rounded up; 0 once expired; null when perpetual',
  }),
});
export type LicenseStatusResponse = Static<typeof LicenseStatusResponse>;

export const LicenseImportResponse = Type.Object({
  sku_tier: SkuTier,
  expires_at: NullableTimestamp('End of validity of the imported license; null when perpetual'),
});
export type LicenseImportResponse = Static<typeof LicenseImportResponse>;

/** Documents the multipart body in OpenAPI; the handler reads and checks the stream itself. */
export const LicenseImportBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description: `The license file: its name must end in ${LICENSE_FILE_EXTENSION}, at most ${MAX_LICENSE_FILE_BYTES / 1024} KiB`,
  }),
});
