/**
 * Realistic examples for the main responses of the OpenAPI document, by operationId and status. Without them the
 * Swagger UI makes one up from the schema (an outlier_score of 1 with severity "low"). Values agree with each other
 * and with the default severity thresholds (high ≥ 0.7, medium ≥ 0.4); a test validates each against its schema.
 */
const FIELD_ID = '3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a9c14';
const OTHER_FIELD_ID = '9a1d4e7b-2c3f-4b8a-8d61-0e5f2c7b4a93';
const NEAREST_ID = 'c2b7e9f4-1a5d-4e3c-b7a8-6f9d0e2c1b57';
const DATASOURCE_ID = '7e4a9c2d-5b1f-4a6e-9c3d-2b8f1e0a7d65';
const USER_ID = 'b5d8f1a3-6c2e-4f7b-a9d4-3e1c0b8a2f76';

const field = {
  id: FIELD_ID,
  datasource_id: DATASOURCE_ID,
  table_name: 'customers',
  field_name: 'email_address',
  data_type: 'varchar(255)',
  comment: 'Primary contact e-mail',
  classification_tag_id: 12,
  classification_chain_path: 'Personal data/Contact/Email',
  level: 'L3',
  lock_level: null,
  review_status: 'unreviewed',
  outlier_score: 0.08,
  severity: 'low',
  suggested_classification: null,
  classification_source: 'classifier',
  classification_confidence: 0.93,
  classification_evidence: [
    { factor: 'name', score: 2.4, detail: 'The column name "email_address" names an e-mail address' },
    { factor: 'comment', score: 0.8, detail: 'The comment mentions an e-mail' },
    { factor: 'data_type', score: 0.3, detail: 'A text column fits an e-mail address' },
  ],
  scan_change: null,
  updated_at: '2026-11-20T09:14:03.512Z',
};

const suspiciousField = {
  ...field,
  id: OTHER_FIELD_ID,
  table_name: 'orders',
  field_name: 'card_number',
  data_type: 'char(16)',
  comment: null,
  classification_tag_id: 4,
  classification_chain_path: 'Business/Orders',
  level: 'L2',
  outlier_score: 0.83,
  severity: 'high',
  suggested_classification: { tag_id: 31, chain_path: 'Financial/Payment card number', level: 'L5', confidence: 0.74 },
  // Given by the import that brought it in: no confidence, no evidence.
  classification_source: 'import',
  classification_confidence: null,
  classification_evidence: [],
  // Found by the last scan of its data source.
  scan_change: 'new',
  updated_at: '2026-11-20T09:14:03.512Z',
};

export const RESPONSE_EXAMPLES: Record<string, Record<string, unknown>> = {
  login: {
    200: {
      access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJiNWQ4ZjFhMyJ9.c2lnbmF0dXJl',
      refresh_token: 'Xq3v9Lr0T8kY2mNc5bW7aJ1eP4sD6fG0hK8uZ3oQ',
      token_type: 'bearer',
      expires_in: 900,
    },
  },
  refreshTokens: {
    200: {
      access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJiNWQ4ZjFhMyJ9.bmV3c2lnbmF0dXJl',
      refresh_token: 'Pz7c1Wn4Hs9Ka2Lm6Qb8Rd3Tf5Vg0Xj2Yk4Zl6Mn',
      expires_in: 900,
    },
  },
  getCurrentUser: {
    200: {
      id: USER_ID,
      username: 'dana.reviewer',
      email: 'dana.reviewer@example.com',
      roles: [{ role: 'operator', scope: 'global' }],
      permissions: ['field:read', 'field:review', 'datasource:read'],
      sku_tier: 'pro',
    },
  },
  getField: { 200: field },
  listFields: { 200: { items: [suspiciousField, field], next_cursor: 'eyJrIjoiZW1haWxfYWRkcmVzcyJ9' } },
  confirmField: { 200: { status: 'confirmed', field_id: FIELD_ID, review_status: 'confirmed' } },
  batchConfirmFields: {
    200: {
      confirmed: [FIELD_ID],
      skipped: [{ field_id: OTHER_FIELD_ID, reason: 'unchanged' }],
      errors: [{ field_id: '00000000-0000-4000-8000-000000000000', code: 'not_found', message: 'Field was not found' }],
    },
  },
  deferField: {
    200: {
      field_id: OTHER_FIELD_ID,
      review_status: 'deferred',
      reason: 'Ask the payments team whether this column still holds card numbers',
      deferred_at: '2026-11-20T10:02:41.118Z',
    },
  },
  getMetricsStatus: { 200: { pending: 0, fields: 48210, last_updated_at: '2026-11-20T09:14:05.007Z' } },
  getEmbeddingMinibars: {
    200: {
      items: [
        {
          field_id: OTHER_FIELD_ID,
          scores: {
            category_anchor: 0.11,
            centroid: 0.19,
            peer_mean: 0.14,
            nearest: 0.62,
            lower_quartile: 0.12,
            farthest: 0.21,
          },
          raw_scores: {
            category_anchor: 0.91,
            centroid: 0.74,
            peer_mean: 0.83,
            nearest: 0.18,
            lower_quartile: 0.95,
            farthest: 1.12,
          },
          category_similarity: 0.09,
          centroid_similarity: 0.26,
          mean_similarity: 0.31,
          outlier_score: 0.83,
          severity: 'high',
          nearest_field_id: NEAREST_ID,
          nearest_field_name: 'payments.card_pan',
          reason:
            'Its 5 nearest fields in shop are all Financial/Payment card number (L5), the closest `payments.card_pan` (similarity 0.91); it is Business/Orders (L2). Its own name, table, comment, type and value formats point to Financial/Payment card number (L5) (classifier 96% sure), not Business/Orders (L2).',
          suggested_classification: {
            tag_id: 31,
            chain_path: 'Financial/Payment card number',
            level: 'L5',
            confidence: 0.74,
          },
          unusual_level: null,
        },
        {
          field_id: FIELD_ID,
          scores: {
            category_anchor: 0.88,
            centroid: 0.79,
            peer_mean: 0.91,
            nearest: 0.95,
            lower_quartile: 0.86,
            farthest: 0.74,
          },
          raw_scores: {
            category_anchor: 0.21,
            centroid: 0.33,
            peer_mean: 0.19,
            nearest: 0.04,
            lower_quartile: 0.27,
            farthest: 0.52,
          },
          category_similarity: 0.79,
          centroid_similarity: 0.67,
          mean_similarity: 0.31,
          outlier_score: 0.08,
          severity: 'low',
          nearest_field_id: NEAREST_ID,
          nearest_field_name: 'crm_contacts.email',
          reason:
            'Nearest field `crm_contacts.email` in crm (similarity 0.96) is Personal data/Contact/Email (L3) too. Nothing points to another classification.',
          suggested_classification: null,
          unusual_level: null,
        },
      ],
      baseline_scores: {
        category_anchor: 0.5,
        centroid: 0.5,
        peer_mean: 0.5,
        nearest: 0.5,
        lower_quartile: 0.5,
        farthest: 0.5,
      },
      field_count: 2,
      missing_field_ids: [],
    },
  },
};
