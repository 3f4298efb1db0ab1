/**
 * The license in force (docs/license.md): status, import, quotas, feature switches and the clock-rollback
 * guard. This service is the LicenseGate other modules call.
 *
 * State lives in the database so every instance acts on the same license: the active row of
 * `licenses`, the trial start and the clock high-water mark in `settings`. Reads that decide a
 * creation (quota + license state) are made inside the creating transaction after a lock; reads for
 * feature switches and the tier use an in-memory copy at most CACHE_TTL_MS old, so a license imported
 * on another instance takes effect there within that time.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Database, Queryable, Tx } from '../../db/database.js';
import type { Caller } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import type { Actor, AuditService } from '../audit/audit.service.js';
import { getSetting, putSettingIfAbsent } from '../../db/settings.js';
import type { WebhookEvents } from '../webhooks/webhooks.service.js';
import type { LicenseGate, QuotaResource } from './license.gate.js';
import {
  LICENSE_FILE_EXTENSION,
  LicenseFileError,
  isIsoTimestamp,
  verifyLicenseFile,
  type FeatureKey,
  type LicensePayload,
  type SkuTier,
} from './license-file.js';
import * as repo from './license.repository.js';
import type { LicenseImportResponse, LicenseStatusResponse } from './license.schemas.js';
import { computeLicenseState, effectiveFeatures, tierOf, type LicenseState } from './tiers.js';

/** How stale the in-memory license may be for feature switches and the tier (another instance's import). */
export const LICENSE_CACHE_TTL_MS = 1_000;
/** The high-water mark is written only when the clock has moved at least this far past it: not a write per request. */
export const HIGH_WATER_MARK_STEP_MS = 60_000;
/** license.expiring goes out this many days before the license (or the trial) expires, once per threshold. */
export const EXPIRING_THRESHOLDS_DAYS = [14, 7, 1] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Why an import failed, as recorded in the audit log. */
export type ImportFailureReason =
  | 'missing_file'
  | 'too_large'
  | 'extension'
  | 'format'
  | 'signature'
  | 'payload'
  | 'expired'
  | 'not_yet_valid'
  | 'clock_rollback'
  | 'older'
  | 'error';

export interface LicenseUpload {
  filename: string;
  bytes: Buffer;
}

/** Reads the uploaded file; throws AppError payload_too_large or validation_failed for a bad upload. */
export type LicenseUploadReader = () => Promise<LicenseUpload>;

/** What the license needs from the modules it counts (wired in services.ts). */
export interface LicenseUsage {
  /** Users that are not disabled. */
  countActiveUsers(trx?: Tx): Promise<number>;
  /** Data sources that are not built-in sample data. */
  countBillableDatasources(trx?: Tx): Promise<number>;
  /** Removes the built-in sample catalog, audit-logged, inside the import's transaction. */
  removeSampleData(trx: Tx, actor: Actor): Promise<unknown>;
}

interface LicenseInputs {
  payload: LicensePayload | null;
  highWaterMark: Date | null;
}

const QUOTA_OF: Record<QuotaResource, { key: 'max_users' | 'max_datasources'; noun: string }> = {
  users: { key: 'max_users', noun: 'active users' },
  datasources: { key: 'max_datasources', noun: 'data sources' },
};

/** A refused import: always 400 license_invalid, with the reason for the audit log. */
class LicenseImportRefused extends AppError {
  constructor(
    readonly reason: ImportFailureReason,
    detail: string,
  ) {
    super('license_invalid', detail);
  }
}

/** The outcome of `resetClockHighWaterMark`: the stored latest-seen time before and after. */
export interface ClockReset {
  previous: string | null;
  current: string | null;
  changed: boolean;
}

/**
 * The operator's recovery from a clock that once ran far ahead (`fieldlens license reset-clock`): lowers the stored
 * latest-seen time to the current time, audit-logged as `license.clock_reset` in the same transaction. A high-water
 * mark at or before now is left as it is. Run it once every instance's clock is right again, or a clock still ahead
 * raises the mark again. The license's signed `issued_at` still counts as a time seen.
 */
export async function resetClockHighWaterMark(
  deps: { database: Database; clock: Clock; audit: AuditService },
  actor: Actor,
): Promise<ClockReset> {
  const now = deps.clock.now().toISOString();
  return deps.database.db.transaction().execute(async (trx) => {
    await deps.database.lock(trx, 'fieldlens.license');
    const { high_water_mark: previous } = await repo.readLicensePointer(trx);
    if (previous === null || previous <= now) return { previous, current: previous, changed: false };
    await repo.setHighWaterMark(trx, now);
    await deps.audit.record(trx, actor, {
      action: 'license.clock_reset',
      targetType: 'license',
      targetId: null,
      details: { previous_high_water_mark: previous, high_water_mark: now, source: 'cli' },
    });
    return { previous, current: now, changed: true };
  });
}

export class LicenseService implements LicenseGate {
  private trialStartedAt: Date | undefined;
  /** The last stored license verified, by id: the signature is checked once per license, not per read. */
  private verified: { licenseId: string; payload: LicensePayload | null } | undefined;
  private cache: { inputs: LicenseInputs; loadedAt: number } | undefined;
  private refreshing: Promise<LicenseInputs> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Expiry thresholds already announced (markers seen), so a refresh reads none again. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      usage: LicenseUsage;
      /** The trusted Ed25519 public key (PEM). */
      publicKeyPem: string;
      log: FastifyBaseLogger;
      /** license.expiring goes out through it. */
      webhooks?: WebhookEvents;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** First start: records the trial start (once, shared by all instances) and starts raising the clock high-water mark. */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    const stored = await putSettingIfAbsent(this.db, repo.TRIAL_STARTED_AT_KEY, now.toISOString(), now);
    if (!isIsoTimestamp(stored))
      throw new Error(`the stored trial start (setting ${repo.TRIAL_STARTED_AT_KEY}) is not a timestamp`);
    this.trialStartedAt = new Date(stored);
    await this.refresh();
    // Keeps the high-water mark moving while nothing asks for the license (a quiet night).
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'refreshing the license state failed'),
      );
    }, HIGH_WATER_MARK_STEP_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The license status object of the spec, with live usage. Always read from the database. */
  async getStatus(): Promise<LicenseStatusResponse> {
    const state = this.stateOf(await this.refresh());
    const [datasources, users] = await Promise.all([
      this.deps.usage.countBillableDatasources(),
      this.deps.usage.countActiveUsers(),
    ]);
    return {
      sku_tier: state.sku_tier,
      license_status: state.license_status,
      computed_status: state.computed_status,
      expires_at: state.expires_at,
      customer_name: state.customer_name,
      quotas: state.quotas,
      usage: { datasources, users },
      features_enabled: state.features_enabled,
      is_expired: state.is_expired,
      days_remaining: state.days_remaining,
    };
  }

  /** Throws 403 license_inactive or quota_exceeded. Serialised per resource, so N concurrent creations at quota − 1 create one. */
  async assertCanCreate(trx: Tx, resource: QuotaResource): Promise<void> {
    await this.deps.database.lock(trx, `fieldlens.quota.${resource}`);
    // Read inside the transaction: an import committed a moment ago on any instance counts.
    const state = this.stateOf(await this.readInputs(trx));
    if (state.computed_status !== 'active') throw new AppError('license_inactive', this.inactiveDetail(state));
    const { key, noun } = QUOTA_OF[resource];
    const limit = state.quotas[key];
    if (limit === null) return;
    const used =
      resource === 'users'
        ? await this.deps.usage.countActiveUsers(trx)
        : await this.deps.usage.countBillableDatasources(trx);
    if (used >= limit) {
      throw new AppError(
        'quota_exceeded',
        `Quota ${key} reached: the ${state.sku_tier} license allows ${limit} ${noun} and ${used} exist. Remove idle ones or import a larger license.`,
      );
    }
  }

  /** Throws 403 feature_disabled when the license switches the feature off. Call it outside a transaction. */
  async assertFeature(feature: FeatureKey): Promise<void> {
    const state = this.stateOf(await this.cachedInputs());
    if (!state.features_enabled[feature]) {
      throw new AppError('feature_disabled', `The ${state.sku_tier} license does not include the feature ${feature}`);
    }
  }

  /** The tier in force (trial_mock without a license). */
  async currentTier(): Promise<SkuTier> {
    return tierOf((await this.cachedInputs()).payload);
  }

  /**
   * Verifies and activates an uploaded license. Any failure leaves the previous license in force and is
   * audit-logged (license.import_failed) in its own transaction; a paid license removes the sample data
   * in the same transaction that activates it.
   */
  async importLicense(caller: Caller, read: LicenseUploadReader): Promise<LicenseImportResponse> {
    let filename: string | null = null;
    let licenseId: string | null = null;
    try {
      const upload = await read();
      filename = upload.filename;
      if (!upload.filename.endsWith(LICENSE_FILE_EXTENSION)) {
        throw new LicenseImportRefused('extension', `The file name must end in ${LICENSE_FILE_EXTENSION}`);
      }
      const payload = this.verifyUpload(upload.bytes);
      licenseId = payload.license_id;
      const now = this.deps.clock.now();
      let previousLicenseId: string | null = null;
      let removedSampleData = false;
      await this.db.transaction().execute(async (trx) => {
        await this.deps.database.lock(trx, 'fieldlens.license');
        const current = await this.readInputs(trx);
        previousLicenseId = current.payload?.license_id ?? null;
        this.assertImportable(payload, now, current.highWaterMark);
        this.assertNotOlder(payload, current.payload);
        await repo.activateLicense(trx, {
          license_id: payload.license_id,
          file_text: upload.bytes.toString('ascii'), // verified: printable ASCII only
          payload: JSON.stringify(payload),
          imported_at: now.toISOString(),
          imported_by: caller.id,
        });
        removedSampleData = payload.sku_tier !== 'trial_mock' || !effectiveFeatures(payload).sample_data;
        if (removedSampleData) await this.deps.usage.removeSampleData(trx, caller);
        await this.deps.audit.record(trx, caller, {
          action: 'license.imported',
          targetType: 'license',
          targetId: payload.license_id,
          details: {
            filename: upload.filename.slice(0, 255),
            sku_tier: payload.sku_tier,
            status: payload.status,
            customer_name: payload.customer_name,
            not_before: payload.not_before,
            expires_at: payload.expires_at,
            quotas: payload.quotas,
            features: payload.features,
            previous_license_id: previousLicenseId,
            removed_sample_data: removedSampleData,
          },
        });
      });
      this.verified = { licenseId: payload.license_id, payload };
      this.cache = undefined;
      const state = this.stateOf({ payload, highWaterMark: null });
      return { sku_tier: payload.sku_tier, expires_at: state.expires_at };
    } catch (error) {
      await this.recordImportFailure(caller, error, filename, licenseId);
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------------

  private verifyUpload(bytes: Buffer): LicensePayload {
    try {
      return verifyLicenseFile(bytes, [this.deps.publicKeyPem]);
    } catch (error) {
      if (error instanceof LicenseFileError)
        throw new LicenseImportRefused(error.reason, `The license file is not valid: ${error.message}`);
      throw error;
    }
  }

  /** Refuses a license that would not be active now: expired, not yet valid, or checked against a rolled-back clock. */
  private assertImportable(payload: LicensePayload, now: Date, highWaterMark: Date | null): void {
    if (payload.expires_at !== null && now.getTime() >= Date.parse(payload.expires_at)) {
      throw new LicenseImportRefused(
        'expired',
        `The license expired at ${new Date(payload.expires_at).toISOString()}; ask the vendor for a renewed license`,
      );
    }
    if (now.getTime() < Date.parse(payload.not_before)) {
      throw new LicenseImportRefused(
        'not_yet_valid',
        `The license is not yet valid: it starts at ${new Date(payload.not_before).toISOString()} and this server's clock says ${now.toISOString()}`,
      );
    }
    if (this.stateOf({ payload, highWaterMark }).is_expired) {
      throw new LicenseImportRefused(
        'clock_rollback',
        'The system clock is more than 24 hours behind the latest time this service has seen or the license was issued; correct the clock and import again',
      );
    }
  }

  /** Refuses a license issued before the one in force, so a suspension or a smaller license cannot be undone by re-importing an old file. */
  private assertNotOlder(payload: LicensePayload, current: LicensePayload | null): void {
    if (current === null || Date.parse(payload.issued_at) >= Date.parse(current.issued_at)) return;
    throw new LicenseImportRefused(
      'older',
      `The license was issued at ${new Date(payload.issued_at).toISOString()}, before the license in force (${current.license_id}, issued at ${new Date(current.issued_at).toISOString()}); an older license cannot replace a newer one`,
    );
  }

  private async recordImportFailure(
    caller: Caller,
    error: unknown,
    filename: string | null,
    licenseId: string | null,
  ): Promise<void> {
    let reason: ImportFailureReason = 'error';
    if (error instanceof LicenseImportRefused) reason = error.reason;
    else if (error instanceof AppError && error.code === 'payload_too_large') reason = 'too_large';
    else if (error instanceof AppError && error.code === 'validation_failed') reason = 'missing_file';
    const detail = error instanceof AppError ? error.detail : 'internal error';
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.deps.audit.record(trx, caller, {
          action: 'license.import_failed',
          targetType: 'license',
          targetId: licenseId,
          details: { reason, detail, filename: filename === null ? null : filename.slice(0, 255) },
        });
      });
    } catch (auditError) {
      this.deps.log.error({ err: auditError }, 'could not audit-log a failed license import');
    }
  }

  private inactiveDetail(state: LicenseState): string {
    const suffix = 'creating data sources and users needs an active license; existing data stays readable';
    switch (state.computed_status) {
      case 'expired': {
        const pastExpiry = state.expires_at !== null && this.deps.clock.now().getTime() >= Date.parse(state.expires_at);
        return pastExpiry
          ? `The ${state.sku_tier} license expired at ${state.expires_at}: ${suffix}`
          : `The license counts as expired because the system clock is more than 24 hours behind the latest time this service has seen: ${suffix}`;
      }
      case 'not_yet_valid':
        return `The license is not yet valid: ${suffix}`;
      default:
        return `The license is ${state.computed_status} by the vendor: ${suffix}`;
    }
  }

  private stateOf(inputs: LicenseInputs): LicenseState {
    if (this.trialStartedAt === undefined) throw new Error('LicenseService.start() has not run');
    return computeLicenseState({
      payload: inputs.payload,
      trialStartedAt: this.trialStartedAt,
      now: this.deps.clock.now(),
      highWaterMark: inputs.highWaterMark,
    });
  }

  /** The license and high-water mark as stored, read through `q` (the database or a transaction). */
  private async readInputs(q: Queryable): Promise<LicenseInputs> {
    const pointer = await repo.readLicensePointer(q);
    const highWaterMark = pointer.high_water_mark === null ? null : new Date(pointer.high_water_mark);
    if (pointer.license_id === null) return { payload: null, highWaterMark };
    if (this.verified?.licenseId !== pointer.license_id) {
      this.verified = { licenseId: pointer.license_id, payload: await this.loadStoredLicense(q, pointer.license_id) };
    }
    return { payload: this.verified.payload, highWaterMark };
  }

  /**
   * Re-verifies a stored license with the trusted key: a row edited in the database, or a license
   * signed by a key no longer trusted, does not count (the service falls back to the trial).
   */
  private async loadStoredLicense(q: Queryable, licenseId: string): Promise<LicensePayload | null> {
    const row = await repo.findLicense(q, licenseId);
    if (row === undefined) return null;
    try {
      const payload = verifyLicenseFile(row.file_text, [this.deps.publicKeyPem]);
      if (payload.license_id !== licenseId)
        throw new LicenseFileError('payload', 'the stored license row does not match its signed license_id');
      return payload;
    } catch (error) {
      if (!(error instanceof LicenseFileError)) throw error;
      this.deps.log.error(
        { licenseId, reason: error.reason },
        `the stored license does not verify with the trusted key (${error.message}); acting as if none were imported`,
      );
      return null;
    }
  }

  /** Reads the stored state afresh, raises the high-water mark when the clock has moved on, and refills the cache. */
  private async refresh(): Promise<LicenseInputs> {
    const inputs = await this.readInputs(this.db);
    const now = this.deps.clock.now();
    if (inputs.highWaterMark === null || now.getTime() - inputs.highWaterMark.getTime() >= HIGH_WATER_MARK_STEP_MS) {
      await repo.raiseHighWaterMark(this.db, now.toISOString());
      inputs.highWaterMark = now;
    }
    this.cache = { inputs, loadedAt: this.deps.clock.monotonicMs() };
    await this.announceExpiry(inputs, now);
    return inputs;
  }

  /**
   * Emits license.expiring when the license in force (or the trial) comes within 14, 7 or 1 days of its expiry: once
   * per license and threshold across all instances (a settings marker written with the event in one transaction);
   * when several thresholds are crossed at once (a license imported with 5 days left), one event for the nearest.
   */
  private async announceExpiry(inputs: LicenseInputs, now: Date): Promise<void> {
    const webhooks = this.deps.webhooks;
    if (!webhooks || this.trialStartedAt === undefined) return;
    const state = this.stateOf(inputs);
    if (state.expires_at === null || state.is_expired) return;
    const left = Date.parse(state.expires_at) - now.getTime();
    const crossed = EXPIRING_THRESHOLDS_DAYS.filter((days) => left <= days * DAY_MS);
    if (crossed.length === 0) return;
    const licenseId = inputs.payload?.license_id ?? 'trial';
    const key = (days: number) => `license.expiring_announced.${licenseId}.${days}`;
    const nearest = crossed[crossed.length - 1] as number;
    if (this.announced.has(key(nearest))) return;
    if ((await getSetting(this.db, key(nearest))) !== undefined) {
      this.announced.add(key(nearest));
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.license.expiring');
      if ((await getSetting(trx, key(nearest))) !== undefined) return;
      for (const days of crossed) await putSettingIfAbsent(trx, key(days), now.toISOString(), now);
      await webhooks.emit(trx, [
        {
          type: 'license.expiring',
          data: {
            license_id: inputs.payload?.license_id ?? null,
            sku_tier: state.sku_tier,
            expires_at: state.expires_at,
            days_before: nearest,
          },
        },
      ]);
    });
    this.announced.add(key(nearest));
  }

  private async cachedInputs(): Promise<LicenseInputs> {
    if (this.cache !== undefined && this.deps.clock.monotonicMs() - this.cache.loadedAt < LICENSE_CACHE_TTL_MS)
      return this.cache.inputs;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}
