/** Schema pieces shared by many routes. */
import { Type } from 'typebox';
import { ROLES } from './access.js';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const IdParams = Type.Object({ id: Uuid });
export const RoleName = Type.Enum(ROLES, { description: 'Role name' });
export const RoleGrant = Type.Object({
  role: RoleName,
  scope: Type.String({ description: '"global" (reserved: "datasource:<uuid>")' }),
});
export const Timestamp = Type.String({ format: 'date-time', description: 'UTC timestamp (ISO 8601)' });
/** Text that may not contain control characters (log injection, invisible data). */
export const PlainText = (options: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ pattern: '^[^\\u0000-\\u001f\\u007f]*$', ...options });
