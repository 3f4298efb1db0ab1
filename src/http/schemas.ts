/** Schema pieces shared by many routes. */
import { Type, type TSchemaOptions, type TUnsafe } from 'typebox';
import { ROLES } from './access.js';

/**
 * A string enum as `{ type: 'string', enum: [...] }`. Type.Enum's `{ enum: [...] }` names no type, so the response
 * serializer (fast-json-stringify) writes each value through JSON.stringify; with the type it writes a string.
 * Validation and the OpenAPI document are the same.
 */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: TSchemaOptions = {},
): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, type: 'string', enum: [...values] });
}

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const IdParams = Type.Object({ id: Uuid });
export const RoleName = StringEnum(ROLES, { description: 'Role name' });
export const RoleGrant = Type.Object({
  role: RoleName,
  scope: Type.String({ description: '"global" (reserved: "datasource:<uuid>")' }),
});
export const Timestamp = Type.String({ format: 'date-time', description: 'UTC timestamp (ISO 8601)' });
/** Text that may not contain control characters (log injection, invisible data). */
export const PlainText = (options: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ pattern: '^[^\\u0000-\\u001f\\u007f]*$', ...options });
