/** Small audit-log factories for tests: entries written through the real AuditService. */
import type { TestApp } from '../../helpers/app.js';
import type { Actor, AuditEvent } from '../../../src/modules/audit/audit.service.js';

export const TEST_ACTOR: Actor = {
  id: '00000000-0000-4000-8000-000000000001',
  username: 'tester',
  requestId: 'req-test',
};

/** Appends the events in one transaction, as a service would. */
export async function recordEvents(t: TestApp, events: AuditEvent[], actor: Actor = TEST_ACTOR): Promise<void> {
  await t.database.db.transaction().execute((trx) => t.app.services.audit.record(trx, actor, events));
}

/** n simple events `test.event` with target ids `t-<i>`. */
export function someEvents(n: number, action = 'test.event'): AuditEvent[] {
  return Array.from({ length: n }, (_, i) => ({ action, targetType: 'thing', targetId: `t-${i}`, details: { i } }));
}
