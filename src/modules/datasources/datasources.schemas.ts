import { Type, type Static } from 'typebox';
import { IdParams, PlainText, Timestamp, Uuid } from '../../http/schemas.js';

export const DatasourceResponse = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: Type.String({ description: 'Kind of system, e.g. postgresql, mysql, oracle' }),
  description: Type.Union([Type.String(), Type.Null()]),
  is_sample: Type.Boolean({ description: 'Part of the built-in trial sample data (not counted in quotas)' }),
  field_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
});
export type DatasourceResponse = Static<typeof DatasourceResponse>;

export const DatasourceListResponse = Type.Object({ items: Type.Array(DatasourceResponse) });

export const CreateDatasourceBody = Type.Object(
  {
    name: PlainText({ minLength: 1, maxLength: 128, description: 'Unique name, 1–128 characters' }),
    type: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.+ -]*$', description: 'Kind of system, e.g. postgresql' }),
    description: Type.Optional(Type.Union([PlainText({ maxLength: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateDatasourceBody = Static<typeof CreateDatasourceBody>;

export const DatasourceIdParams = IdParams;
