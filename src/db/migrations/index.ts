/**
 * The ordered list of migrations. Each is a factory of the dialect so one definition serves both
 * databases. Append new entries; never edit or reorder a released one.
 */
import type { Migration } from 'kysely';
import { initial } from './0001-initial.js';
import { metrics } from './0005-metrics.js';
import { metricsQueueOrder } from './0006-metrics-queue-order.js';
import { metricsNearestName } from './0007-metrics-nearest-name.js';
import { catalogChanges } from './0008-catalog-changes.js';
import { loginAttemptsPending } from './0009-login-attempts-pending.js';
import { classification } from './0010-classification.js';
import { datasourceConnections } from './0011-datasource-connections.js';
import { scans } from './0012-scans.js';
import { outlierEvidence } from './0013-outlier-evidence.js';
import { fieldListOrder } from './0014-field-list-order.js';
import { scanNotes } from './0015-scan-notes.js';
import { fieldScanChange } from './0016-field-scan-change.js';
import { auditFilters } from './0017-audit-filters.js';
import { tagEditing } from './0018-tag-editing.js';
import { fieldInventory } from './0019-field-inventory.js';
import { classificationRules } from './0020-classification-rules.js';
import { apiTokens } from './0021-api-tokens.js';
import { webhooks } from './0022-webhooks.js';
import { fitScores } from './0023-fit-scores.js';
import { singleSignOn } from './0024-single-sign-on.js';
import { tagLevelCount } from './0025-tag-level-count.js';
import { outlierOrderIndexes } from './0026-outlier-order-indexes.js';
import { nameSearch } from './0027-name-search.js';
import { labelGap } from './0028-label-gap.js';

export type DialectKind = 'sqlite' | 'postgres';
export type MigrationFactory = (kind: DialectKind) => Migration;

export const migrationFactories: ReadonlyArray<readonly [name: string, factory: MigrationFactory]> = [
  ['0001-initial', initial],
  ['0005-metrics', metrics],
  ['0006-metrics-queue-order', metricsQueueOrder],
  ['0007-metrics-nearest-name', metricsNearestName],
  ['0008-catalog-changes', catalogChanges],
  ['0009-login-attempts-pending', loginAttemptsPending],
  ['0010-classification', classification],
  ['0011-datasource-connections', datasourceConnections],
  ['0012-scans', scans],
  ['0013-outlier-evidence', outlierEvidence],
  ['0014-field-list-order', fieldListOrder],
  ['0015-scan-notes', scanNotes],
  ['0016-field-scan-change', fieldScanChange],
  ['0017-audit-filters', auditFilters],
  ['0018-tag-editing', tagEditing],
  ['0019-field-inventory', fieldInventory],
  ['0020-classification-rules', classificationRules],
  ['0021-api-tokens', apiTokens],
  ['0022-webhooks', webhooks],
  ['0023-fit-scores', fitScores],
  ['0024-single-sign-on', singleSignOn],
  ['0025-tag-level-count', tagLevelCount],
  ['0026-outlier-order-indexes', outlierOrderIndexes],
  ['0027-name-search', nameSearch],
  ['0028-label-gap', labelGap],
];
