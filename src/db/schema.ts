/**
 * Table types for Kysely. Columns are snake_case like the API. Portable choices so both dialects
 * behave the same: timestamps are ISO-8601 UTC text, booleans are 0/1 integers, JSON is text,
 * UUIDs are text, embeddings are raw little-endian float32 bytes.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Bool = 0 | 1;

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  username: string;
  /** lower-cased username: the unique key, so `Alice` and `alice` cannot both exist. */
  username_key: string;
  email: string;
  password_hash: string;
  /** JSON array of role names. */
  roles: string;
  disabled: Bool;
  /** Bumped on disable, role or password change: access tokens carry it and older ones are refused. */
  token_version: number;
  created_at: string;
  updated_at: string;
  /** The OpenID provider and its subject of a user created by single sign-on (null for local users). */
  oidc_issuer: ColumnType<string | null, string | null | undefined, string | null>;
  oidc_subject: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A single sign-on that went to the provider and has not come back yet (the sso module). */
export interface SsoLoginsTable {
  /** SHA-256 of the `state` sent to the provider. */
  state_hash: string;
  /** SHA-256 of the random value in the browser's cookie: the callback must come from the browser that started. */
  binding_hash: string;
  nonce: string;
  /** The PKCE code verifier, AES-256-GCM under a key derived from the state (the database alone does not reveal it). */
  sealed_verifier: string;
  created_at: string;
  expires_at: string;
}

/** One-use codes (60 s) the console exchanges for a token pair after a single sign-on. */
export interface SsoCodesTable {
  code_hash: string;
  binding_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface LoginAttemptsTable {
  username_key: string;
  /** Consecutive failed password checks. */
  failures: number;
  /** Attempts claimed whose password check has not finished yet. */
  pending: ColumnType<number, number | undefined, number>;
  locked_until: string | null;
  /** When the last attempt was claimed. */
  last_failed_at: string;
}

export interface AuthSessionsTable {
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: string;
  used_at: string | null;
}

export interface DatasourcesTable {
  id: string;
  name: string;
  type: string;
  description: string | null;
  is_sample: Bool;
  created_at: string;
  updated_at: string;
  /** The connection object as JSON, without its password; null: not scannable. */
  connection: string | null;
  /** The password sealed by the secret box (context: the data source id); never the password itself. */
  connection_password: string | null;
  /** Hours between automatic scans (1–8760); null: none. */
  scan_interval_hours: number | null;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
  parent_id: number | null;
  chain_path: string;
  default_level: string;
  description: string | null;
  /** JSON array of strings. */
  keywords: string;
  is_builtin: Bool;
  /** A built-in tag's chain path in the default taxonomy, kept when it is renamed or moved; null for an organisation's own. */
  builtin_path: string | null;
  created_at: string;
}

export interface FieldsTable {
  id: string;
  datasource_id: string;
  table_name: string;
  field_name: string;
  data_type: string | null;
  comment: string | null;
  /** Format signature of the sample values (never the values). */
  format_signature: string | null;
  tag_id: number;
  level: string;
  /** 1 once a reviewer locked the classification: imports no longer change it. */
  locked: Bool;
  review_status: 'unreviewed' | 'confirmed' | 'deferred';
  review_reason: string | null;
  reviewed_at: string | null;
  reviewed_by: string | null;
  embedding: ColumnType<Uint8Array | null, Uint8Array | null, Uint8Array | null>;
  embedder_version: string | null;
  /** Denormalised from the stored metrics so the field list can filter and sort on them. */
  outlier_score: number | null;
  severity: 'low' | 'medium' | 'high' | null;
  /** How the classification was given: by the importing caller, by the classifier, or by a reviewer. */
  classification_source: Generated<ClassificationSource>;
  /** The classifier's calibrated confidence; null unless classification_source is `classifier`. */
  classification_confidence: number | null;
  /** JSON array of {factor, score, detail}; null unless classification_source is `classifier`. */
  classification_evidence: string | null;
  /** The sample values' formats as kinds and shares (never a value), for re-evaluation without the samples. */
  value_summary: string | null;
  /** Classifier and taxonomy version the classifier classified the field with. */
  classified_with: string | null;
  /** The classifier's own view of the field from its name, table, comment, type and value formats (never its label). */
  predicted_tag_id: number | null;
  predicted_level: string | null;
  predicted_confidence: number | null;
  /**
   * How many points the field's label trails the classifier's answer by in the classifier's own points (0 when it
   * names the label); written with the view. Null: unknown (before migration 0028, or the label changed since).
   */
  predicted_label_gap: number | null;
  /** Classifier and taxonomy version of that view. */
  predicted_with: string | null;
  /** Mirrored from the stored metrics: the classification that fits better than the current one, or null. */
  suggested_tag_id: number | null;
  suggested_level: string | null;
  suggested_confidence: number | null;
  /** Review-order key of `sort=risk` (docs/metrics.md, "Risk order"); null before the metrics are computed. */
  risk: number | null;
  /** The scan that last created or rewrote the field (null: never written by a scan), and what it did. */
  last_scan_id: string | null;
  scan_change: ScanChange | null;
  created_at: string;
  updated_at: string;
}

/** What a scan did to a field: created it, saw its column change, or saw it change and re-classified it. */
export type ScanChange = 'new' | 'changed' | 'reclassified';

export type ClassificationSource = 'import' | 'classifier' | 'rule' | 'reviewer';

export interface AuditLogTable {
  seq: number;
  at: string;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** Canonical JSON object. */
  details: string;
  request_id: string | null;
  prev_hash: string;
  hash: string;
}

/** One row (id = 1): the chain head, locked by each writer so concurrent appends form one chain. */
export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
}

export interface LicensesTable {
  license_id: string;
  file_text: string;
  /** Verified payload JSON. */
  payload: string;
  imported_at: string;
  imported_by: string | null;
  active: Bool;
}

/** The six axes' columns, named here so the schema depends on no module (the metrics module checks it names the same axes). */
export type MetricsAxisKey = 'category_anchor' | 'centroid' | 'peer_mean' | 'nearest' | 'lower_quartile' | 'farthest';

/** Stored metrics of one field (metrics module): raw axes are cosine distances, scores calibrated fit scores in [0, 1] (metrics/fit-scores.ts). */
export type FieldMetricsTable = { [C in `raw_${MetricsAxisKey}` | `score_${MetricsAxisKey}`]: number } & {
  field_id: string;
  category_similarity: number;
  centroid_similarity: number;
  neighbour_disagreement: number;
  peer_margin: number | null;
  anchor_margin: number | null;
  outlier_score: number;
  severity: 'low' | 'medium' | 'high';
  nearest_field_id: string | null;
  /** `table.field` of the nearest field when the metrics were computed. */
  nearest_field_name: string | null;
  nearest_similarity: number | null;
  reason: string;
  computed_at: string;
  suggested_tag_id: number | null;
  suggested_level: string | null;
  suggested_confidence: number | null;
  /** A confirmed field's neighbourhood when first measured after its confirmation (null otherwise). */
  confirmed_basis: string | null;
};

/** Fields to classify again after the classifier or the taxonomy changed (a WorkQueue table). */
export type ReclassifyQueueTable = MetricsQueueTable;

/** An organisation's classification rule (rules module); `match` and `datasource_ids` are JSON text. */
export interface ClassificationRulesTable {
  id: string;
  name: string;
  description: string | null;
  tag_id: number;
  /** null: the tag's default level. */
  level: string | null;
  priority: number;
  enabled: Bool;
  match: string;
  /** JSON array of data source ids; null: every data source. */
  datasource_ids: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}
export type ClassificationRuleRow = Selectable<ClassificationRulesTable>;

/** A user's API token (the tokens module). Only the keyed hash of the secret is stored. */
export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** `flk_` and the first characters of the secret: what lists show so a user recognises a token. */
  prefix: string;
  /** HMAC-SHA256 of the whole token under a subkey of the signing key, hex. */
  token_hash: string;
  /** JSON array of permission names; null: every permission the user holds at use time. */
  permissions: string | null;
  expires_at: string;
  last_used_at: string | null;
  created_at: string;
}
export type ApiTokenRow = Selectable<ApiTokensTable>;

/** A webhook subscription (webhooks module); `events` is a JSON array, `secret` the sealed signing secret. */
export interface WebhooksTable {
  id: string;
  url: string;
  events: string;
  enabled: Bool;
  description: string | null;
  secret: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}
export type WebhookRow = Selectable<WebhooksTable>;

/** One event for one webhook, and its own queue entry (leased by claimed_by/claimed_at). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  claimed_by: string | null;
  claimed_at: string | null;
  created_at: string;
  delivered_at: string | null;
}
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Fields whose stored metrics are stale; shared by every instance (a WorkQueue table, src/db/work-queue.ts). */
export interface MetricsQueueTable {
  field_id: string;
  token: string;
  enqueued_at: string;
  claimed_by: string | null;
  claimed_at: string | null;
}

/**
 * Written by triggers on `fields` and `tags`: every committed change of the catalog, in sequence order. A field
 * change carries the field's tag and level after (`tag_id`, `level`; null when deleted) and before (`old_…`; null
 * when inserted); a tag change has only `tag_id`. `expanded` turns 1 once the metrics worker has enqueued what it
 * affects.
 */
export interface CatalogChangesTable {
  seq: Generated<number>;
  field_id: string | null;
  tag_id: number | null;
  level: string | null;
  old_tag_id: number | null;
  old_level: string | null;
  expanded: Generated<Bool>;
}

/** A scan of a data source's database (scans module); the row is also the job workers claim. */
export interface ScansTable {
  id: string;
  datasource_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  phase: string;
  tables_done: Generated<number>;
  tables_total: Generated<number>;
  fields_done: Generated<number>;
  fields_total: Generated<number>;
  count_new: Generated<number>;
  count_changed: Generated<number>;
  count_removed: Generated<number>;
  count_unchanged: Generated<number>;
  count_classified: Generated<number>;
  error: string | null;
  /** The user who asked for it; null for a periodic scan. */
  requested_by: string | null;
  requested_by_name: string | null;
  cancel_requested: Generated<Bool>;
  /** Times a worker started or took over the scan. */
  attempts: Generated<number>;
  claimed_by: string | null;
  heartbeat_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON of ScanNotes (scans.service.ts): what the scan could not sample, skipped or cut; null before any. */
  notes: string | null;
}

/** The tables a scan has written, by the name their fields get: what a taken-over scan resumes by. */
export interface ScanTablesTable {
  scan_id: string;
  table_name: string;
}

export interface DB {
  settings: SettingsTable;
  users: UsersTable;
  login_attempts: LoginAttemptsTable;
  auth_sessions: AuthSessionsTable;
  refresh_tokens: RefreshTokensTable;
  datasources: DatasourcesTable;
  tags: TagsTable;
  fields: FieldsTable;
  audit_log: AuditLogTable;
  audit_head: AuditHeadTable;
  licenses: LicensesTable;
  field_metrics: FieldMetricsTable;
  classification_rules: ClassificationRulesTable;
  api_tokens: ApiTokensTable;
  metrics_queue: MetricsQueueTable;
  reclassify_queue: ReclassifyQueueTable;
  catalog_changes: CatalogChangesTable;
  scans: ScansTable;
  scan_tables: ScanTablesTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  sso_logins: SsoLoginsTable;
  sso_codes: SsoCodesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type DatasourceRow = Selectable<DatasourcesTable>;
export type TagRow = Selectable<TagsTable>;
export type FieldRow = Selectable<FieldsTable>;
export type NewFieldRow = Insertable<FieldsTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type LicenseRow = Selectable<LicensesTable>;
export type ScanRow = Selectable<ScansTable>;
export type NewScanRow = Insertable<ScansTable>;
