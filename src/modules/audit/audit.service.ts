/**
 * Writing the audit log. Every service that changes something calls `record` inside the same
 * transaction as the change, so a change without its entry (or the reverse) cannot exist.
 */
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import { canonicalJson } from './audit-chain.js';
import { appendEntries } from './audit.repository.js';

/** Who did it, from which request. `id`/`username` are null for anonymous events (failed login of an unknown user). */
export interface Actor {
  readonly id: string | null;
  readonly username: string | null;
  readonly requestId: string | null;
}

export const SYSTEM_ACTOR: Actor = { id: null, username: 'system', requestId: null };

export interface AuditEvent {
  action: string;
  targetType: string | null;
  targetId: string | null;
  details?: Record<string, unknown>;
}

export class AuditService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Appends one entry per event, in order, inside the caller's transaction. */
  async record(trx: Tx, actor: Actor, events: AuditEvent | readonly AuditEvent[]): Promise<void> {
    const list = Array.isArray(events) ? (events as readonly AuditEvent[]) : [events as AuditEvent];
    const at = this.clock.now().toISOString();
    await appendEntries(
      this.database,
      trx,
      list.map((event) => ({
        at,
        actor_id: actor.id,
        actor_username: actor.username,
        action: event.action,
        target_type: event.targetType,
        target_id: event.targetId,
        details: canonicalJson(event.details ?? {}),
        request_id: actor.requestId,
      })),
    );
  }
}
