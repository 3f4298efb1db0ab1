// node:test's describe/it return promises that the runner itself tracks; awaiting them is not needed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LicensePayload } from '../../../src/modules/license/license-file.js';
import { computeLicenseState, effectiveFeatures, type LicenseStateInput } from '../../../src/modules/license/tiers.js';

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const START = new Date('2026-03-01T12:00:00.000Z');
const at = (offsetMs: number): Date => new Date(START.getTime() + offsetMs);

function makePayload(overrides: Partial<LicensePayload> = {}): LicensePayload {
  return {
    format: 1,
    license_id: 'lic-1',
    customer_name: 'ACME Corp',
    sku_tier: 'pro',
    status: 'active',
    issued_at: START.toISOString(),
    not_before: START.toISOString(),
    expires_at: at(365 * DAY).toISOString(),
    quotas: { max_datasources: 20, max_users: 100 },
    features: {},
    ...overrides,
  };
}

function state(input: Partial<LicenseStateInput>) {
  return computeLicenseState({ payload: null, trialStartedAt: START, now: START, highWaterMark: null, ...input });
}

describe('built-in trial', () => {
  it('is active for 30 days from first start with the trial quotas and every feature', () => {
    assert.deepEqual(state({ now: START }), {
      sku_tier: 'trial_mock',
      license_status: 'active',
      computed_status: 'active',
      expires_at: '2026-03-31T12:00:00.000Z',
      customer_name: null,
      quotas: { max_datasources: 3, max_users: 5 },
      features_enabled: { embedding_metrics: true, batch_confirm: true, audit_export: true, sample_data: true },
      is_expired: false,
      days_remaining: 30,
    });
  });

  it('has 1 day left on day 29 and rounds partial days up', () => {
    assert.equal(state({ now: at(29 * DAY) }).days_remaining, 1);
    assert.equal(state({ now: at(29 * DAY) }).computed_status, 'active');
    assert.equal(state({ now: at(1) }).days_remaining, 30);
    assert.equal(state({ now: at(DAY + 1) }).days_remaining, 29);
    assert.equal(state({ now: at(30 * DAY - 1) }).days_remaining, 1);
  });

  it('is expired from the 30-day mark on (day 31 included)', () => {
    const atEnd = state({ now: at(30 * DAY) });
    assert.equal(atEnd.computed_status, 'expired');
    assert.equal(atEnd.is_expired, true);
    assert.equal(atEnd.days_remaining, 0);
    const day31 = state({ now: at(31 * DAY) });
    assert.equal(day31.computed_status, 'expired');
    assert.equal(day31.days_remaining, 0);
    assert.equal(day31.sku_tier, 'trial_mock');
  });

  it('is never "not yet valid": a clock slightly behind the trial start (another instance) is still active', () => {
    const skewed = state({ now: at(-5 * 60 * 1000) });
    assert.equal(skewed.computed_status, 'active');
    assert.equal(skewed.days_remaining, 31);
  });

  it('counts a clock more than 24 h before the trial start as rollback', () => {
    const rolledBack = state({ now: at(-25 * HOUR) });
    assert.equal(rolledBack.computed_status, 'expired');
    assert.equal(rolledBack.is_expired, true);
    assert.equal(rolledBack.days_remaining, 0);
  });
});

describe('paid tiers', () => {
  it('lite: embedding_metrics only, quotas from the payload', () => {
    const result = state({
      payload: makePayload({ sku_tier: 'lite', quotas: { max_datasources: 5, max_users: 10 } }),
      now: at(DAY),
    });
    assert.equal(result.sku_tier, 'lite');
    assert.equal(result.computed_status, 'active');
    assert.deepEqual(result.quotas, { max_datasources: 5, max_users: 10 });
    assert.deepEqual(result.features_enabled, {
      embedding_metrics: true,
      batch_confirm: false,
      audit_export: false,
      sample_data: false,
    });
    assert.equal(result.customer_name, 'ACME Corp');
    assert.equal(result.days_remaining, 364);
  });

  for (const tier of ['pro', 'enterprise'] as const) {
    it(`${tier}: everything but sample_data, null quotas mean unlimited`, () => {
      const result = state({
        payload: makePayload({ sku_tier: tier, quotas: { max_datasources: null, max_users: 250 } }),
        now: at(DAY),
      });
      assert.equal(result.sku_tier, tier);
      assert.equal(result.license_status, 'active');
      assert.equal(result.computed_status, 'active');
      assert.deepEqual(result.quotas, { max_datasources: null, max_users: 250 });
      assert.deepEqual(result.features_enabled, {
        embedding_metrics: true,
        batch_confirm: true,
        audit_export: true,
        sample_data: false,
      });
      assert.equal(result.expires_at, at(365 * DAY).toISOString());
      assert.equal(result.is_expired, false);
    });
  }

  it('a signed trial_mock license takes its quotas and expiry from the payload', () => {
    const payload = makePayload({
      sku_tier: 'trial_mock',
      expires_at: at(60 * DAY).toISOString(),
      quotas: { max_datasources: 4, max_users: 8 },
    });
    const result = state({ payload, now: at(45 * DAY), trialStartedAt: at(-100 * DAY) });
    assert.equal(result.computed_status, 'active');
    assert.equal(result.days_remaining, 15);
    assert.deepEqual(result.quotas, { max_datasources: 4, max_users: 8 });
    assert.equal(result.features_enabled.sample_data, true);
  });

  it('payload features override the tier defaults in both directions', () => {
    assert.deepEqual(
      effectiveFeatures(makePayload({ sku_tier: 'lite', features: { batch_confirm: true, embedding_metrics: false } })),
      {
        embedding_metrics: false,
        batch_confirm: true,
        audit_export: false,
        sample_data: false,
      },
    );
    assert.deepEqual(effectiveFeatures(makePayload({ sku_tier: 'enterprise', features: { audit_export: false } })), {
      embedding_metrics: true,
      batch_confirm: true,
      audit_export: false,
      sample_data: false,
    });
    assert.deepEqual(effectiveFeatures(null), {
      embedding_metrics: true,
      batch_confirm: true,
      audit_export: true,
      sample_data: true,
    });
  });

  it('expires at expires_at exactly', () => {
    const payload = makePayload();
    assert.equal(state({ payload, now: at(365 * DAY - 1) }).days_remaining, 1);
    const expired = state({ payload, now: at(365 * DAY) });
    assert.equal(expired.computed_status, 'expired');
    assert.equal(expired.is_expired, true);
    assert.equal(expired.days_remaining, 0);
  });

  it('perpetual: no expiry, days_remaining null', () => {
    const result = state({ payload: makePayload({ expires_at: null }), now: at(10_000 * DAY) });
    assert.equal(result.computed_status, 'active');
    assert.equal(result.expires_at, null);
    assert.equal(result.is_expired, false);
    assert.equal(result.days_remaining, null);
  });

  it('not yet valid before not_before', () => {
    const payload = makePayload({ not_before: at(10 * DAY).toISOString() });
    const early = state({ payload, now: at(2 * DAY) });
    assert.equal(early.computed_status, 'not_yet_valid');
    assert.equal(early.is_expired, false);
    assert.equal(early.days_remaining, 363);
    assert.equal(state({ payload, now: at(10 * DAY) }).computed_status, 'active');
  });

  it('normalises expires_at to UTC', () => {
    const result = state({ payload: makePayload({ expires_at: '2027-03-01T14:00:00+02:00' }), now: at(DAY) });
    assert.equal(result.expires_at, '2027-03-01T12:00:00.000Z');
  });
});

describe('suspended and revoked', () => {
  for (const status of ['suspended', 'revoked'] as const) {
    it(`${status} is reported as such, and wins over expiry and not-yet-valid`, () => {
      const active = state({ payload: makePayload({ status }), now: at(DAY) });
      assert.equal(active.license_status, status);
      assert.equal(active.computed_status, status);
      assert.equal(active.is_expired, false);
      assert.equal(active.days_remaining, 364);

      const expired = state({ payload: makePayload({ status }), now: at(400 * DAY) });
      assert.equal(expired.computed_status, status);
      assert.equal(expired.is_expired, true);
      assert.equal(expired.days_remaining, 0);

      const early = state({ payload: makePayload({ status, not_before: at(10 * DAY).toISOString() }), now: at(DAY) });
      assert.equal(early.computed_status, status);
    });
  }
});

describe('clock rollback', () => {
  const payload = makePayload();

  it('a clock more than 24 h behind the high-water mark makes the license expired', () => {
    const result = state({ payload, now: at(100 * DAY), highWaterMark: at(101 * DAY + 1) });
    assert.equal(result.computed_status, 'expired');
    assert.equal(result.is_expired, true);
    assert.equal(result.days_remaining, 0);
    assert.equal(result.sku_tier, 'pro');
  });

  it('up to 24 h behind is tolerated', () => {
    const exactly24h = state({ payload, now: at(100 * DAY), highWaterMark: at(101 * DAY) });
    assert.equal(exactly24h.computed_status, 'active');
    assert.equal(exactly24h.days_remaining, 265);
    assert.equal(state({ payload, now: at(100 * DAY), highWaterMark: at(100 * DAY + HOUR) }).computed_status, 'active');
    assert.equal(state({ payload, now: at(100 * DAY), highWaterMark: at(50 * DAY) }).computed_status, 'active');
  });

  it('ends once the clock catches up', () => {
    const highWaterMark = at(200 * DAY);
    assert.equal(state({ payload, now: at(150 * DAY), highWaterMark }).computed_status, 'expired');
    assert.equal(state({ payload, now: at(200 * DAY - 23 * HOUR), highWaterMark }).computed_status, 'active');
  });

  it('applies to a perpetual license too', () => {
    const result = state({ payload: makePayload({ expires_at: null }), now: at(DAY), highWaterMark: at(3 * DAY) });
    assert.equal(result.computed_status, 'expired');
    assert.equal(result.days_remaining, 0);
  });

  it('applies to the built-in trial', () => {
    const result = state({ now: at(5 * DAY), highWaterMark: at(10 * DAY) });
    assert.equal(result.computed_status, 'expired');
    assert.equal(result.days_remaining, 0);
    assert.equal(state({ now: at(5 * DAY), highWaterMark: at(5 * DAY + 23 * HOUR) }).days_remaining, 25);
  });

  it('treats the signed issued_at as a time already seen (clock set before issue)', () => {
    const issuedLater = makePayload({ issued_at: at(10 * DAY).toISOString(), not_before: START.toISOString() });
    assert.equal(state({ payload: issuedLater, now: at(8 * DAY) }).computed_status, 'expired');
    assert.equal(state({ payload: issuedLater, now: at(9 * DAY + HOUR) }).computed_status, 'active');
  });

  it('revoked still wins over rollback', () => {
    const result = state({ payload: makePayload({ status: 'revoked' }), now: at(DAY), highWaterMark: at(30 * DAY) });
    assert.equal(result.computed_status, 'revoked');
    assert.equal(result.is_expired, true);
  });
});
