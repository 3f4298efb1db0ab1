/**
 * The webhook delivery worker, on every instance: every second it claims due deliveries (webhooks.repository.ts
 * `claimDue`: a lease in the row, `FOR UPDATE SKIP LOCKED` on PostgreSQL, so any instance delivers and no two send one
 * attempt) while it has room (MAX_IN_FLIGHT, PER_WEBHOOK_IN_FLIGHT), checks the URL's addresses again, sends each attempt (webhook-sender.ts) outside any transaction and
 * records the outcome fenced by its claim. A failed attempt (non-2xx, redirect, timeout, refused address) is tried
 * again after an exponential backoff with jitter — about 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every 4 h —
 * until 24 h after the event, then the delivery is failed. An instance that dies mid-attempt leaves its lease, which
 * runs out after 60 s: the attempt is made again (at least once; receivers deduplicate on `webhook-id`).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Rounds } from '../../background/rounds.js';
import type { Clock } from '../../clock.js';
import { SecretDecryptError, type SecretBox } from '../../crypto/secret-box.js';
import type { Database } from '../../db/database.js';
import { checkWebhookUrl, WebhookUrlRefused, type AddressPolicy, type Resolver } from './webhook-address.js';
import { sendWebhook, type AttemptResult } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';

/** Seconds to wait after the n-th failed attempt (n from 1); the last value repeats. */
export const RETRY_DELAYS_S = [10, 30, 120, 600, 1800, 3600, 7200, 14_400] as const;
/** A delivery not made within this long after its event is failed. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim older than this was left by an instance that died mid-attempt (well over the 10 s attempt deadline). */
export const DELIVERY_LEASE_MS = 60_000;
/** Deliveries claimed per query. */
const BATCH = 16;
/** Attempts one instance makes at once, and at most this many to one webhook (a slow receiver holds only its own). */
export const MAX_IN_FLIGHT = 64;
export const PER_WEBHOOK_IN_FLIGHT = 16;

/** When to try again after `attempts` failed attempts: the schedule's delay plus up to 50 % jitter (so the first retry comes within 15 s). */
export function nextAttemptDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = RETRY_DELAYS_S[Math.min(attempts, RETRY_DELAYS_S.length) - 1] ?? RETRY_DELAYS_S[0];
  return Math.round(base * 1000 * (1 + 0.5 * random()));
}

export interface WebhookWorkerDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  secretBox: SecretBox | undefined;
  policy: AddressPolicy;
  resolve?: Resolver;
  /** The deadline of one attempt (default 10 s). */
  timeoutMs?: number;
}

export class WebhookWorker {
  readonly id = randomUUID();
  private readonly rounds: Rounds;
  /** Attempts in progress, and how many per webhook. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perWebhook = new Map<string, number>();

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.rounds = new Rounds('webhooks', deps.log, () => this.round());
  }

  start(intervalMs = 1000): void {
    this.rounds.start(intervalMs);
  }

  /** Stops claiming and waits for the attempts in progress (each ends by its deadline). */
  async stop(): Promise<void> {
    await this.rounds.stop();
    await Promise.all([...this.inFlight]);
  }

  /** Makes every attempt that is due now, and waits for them (tests, benchmarks). */
  async drain(): Promise<void> {
    for (;;) {
      await this.rounds.runNow();
      if (this.inFlight.size === 0) return;
      await Promise.all([...this.inFlight]);
    }
  }

  /**
   * Claims due deliveries while this instance has room (MAX_IN_FLIGHT attempts, PER_WEBHOOK_IN_FLIGHT per webhook) and
   * starts their attempts without waiting for them: a slow receiver holds its own slots, not the others' deliveries.
   */
  private async round(): Promise<void> {
    for (;;) {
      if (this.rounds.stopped) return;
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room <= 0) return;
      const full = [...this.perWebhook].filter(([, n]) => n >= PER_WEBHOOK_IN_FLIGHT).map(([id]) => id);
      const now = this.deps.clock.now();
      const leaseBefore = new Date(now.getTime() - DELIVERY_LEASE_MS).toISOString();
      const claimed = await repo.claimDue(
        this.deps.database,
        this.id,
        now.toISOString(),
        leaseBefore,
        Math.min(room, BATCH),
        full,
      );
      if (claimed.length === 0) return;
      const overflow: string[] = [];
      for (const delivery of claimed) {
        const busy = this.perWebhook.get(delivery.webhook_id) ?? 0;
        if (busy >= PER_WEBHOOK_IN_FLIGHT) {
          overflow.push(delivery.id);
          continue;
        }
        this.perWebhook.set(delivery.webhook_id, busy + 1);
        const running: Promise<void> = this.attempt(delivery)
          .catch((error: unknown) =>
            this.deps.log.warn({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed to record'),
          )
          .finally(() => {
            this.inFlight.delete(running);
            const left = (this.perWebhook.get(delivery.webhook_id) ?? 1) - 1;
            if (left <= 0) this.perWebhook.delete(delivery.webhook_id);
            else this.perWebhook.set(delivery.webhook_id, left);
          });
        this.inFlight.add(running);
      }
      // Claimed beyond a webhook's share: given back at once, for this or another instance.
      if (overflow.length > 0) await repo.releaseClaims(this.deps.database.db, overflow, this.id);
      if (overflow.length === claimed.length) return;
    }
  }

  private async attempt(delivery: repo.ClaimedDelivery): Promise<void> {
    const result = await this.send(delivery);
    const now = this.deps.clock.now();
    const attempts = delivery.attempts + 1;
    if (result.ok) {
      await this.record(delivery.id, {
        status: 'delivered',
        attempts,
        last_status_code: result.statusCode,
        last_error: null,
        delivered_at: now.toISOString(),
        next_attempt_at: null,
      });
      return;
    }
    const next = now.getTime() + nextAttemptDelayMs(attempts);
    const giveUp = next > Date.parse(delivery.created_at) + DELIVERY_WINDOW_MS;
    await this.record(delivery.id, {
      status: giveUp ? 'failed' : 'pending',
      attempts,
      last_status_code: result.statusCode,
      last_error: result.error,
      next_attempt_at: giveUp ? null : new Date(next).toISOString(),
    });
    if (giveUp)
      this.deps.log.warn(
        { webhookId: delivery.webhook_id, deliveryId: delivery.id, attempts },
        'webhook delivery failed for good after 24 h of retries',
      );
  }

  /**
   * Records an attempt's outcome, tried again twice when the database does not answer (a full pool under load): a
   * delivered attempt left unrecorded would be sent again once its lease runs out.
   */
  private async record(id: string, change: Parameters<typeof repo.recordAttempt>[3]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await repo.recordAttempt(this.deps.database.db, id, this.id, change);
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
  }

  private async send(delivery: repo.ClaimedDelivery): Promise<AttemptResult> {
    let secret: string;
    try {
      if (!this.deps.secretBox)
        return { ok: false, statusCode: null, error: 'the service has no secret key to sign with' };
      secret = this.deps.secretBox.decrypt(delivery.secret, delivery.webhook_id);
    } catch (error) {
      if (error instanceof SecretDecryptError)
        return {
          ok: false,
          statusCode: null,
          error: 'the signing secret cannot be decrypted (the secret key changed?)',
        };
      throw error;
    }
    let target;
    try {
      target = await checkWebhookUrl(delivery.url, this.deps.policy, this.deps.resolve);
    } catch (error) {
      if (error instanceof WebhookUrlRefused)
        return { ok: false, statusCode: null, error: `refused: ${error.message}`.slice(0, 300) };
      throw error;
    }
    return sendWebhook({
      target,
      id: delivery.id,
      timestamp: Math.floor(this.deps.clock.now().getTime() / 1000),
      body: delivery.payload,
      secret,
      timeoutMs: this.deps.timeoutMs,
    });
  }
}
