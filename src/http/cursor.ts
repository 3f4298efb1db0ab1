/**
 * Opaque keyset cursors of the paginated lists: a small JSON object in base64url. Decoding checks the shape with the
 * list's own reader and answers 400 `validation_failed` for anything this service did not issue.
 */
import { AppError } from './errors.js';

export function encodeCursor(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The cursor's payload as `read` makes it (undefined: not a cursor of this list), else 400. */
export function decodeCursor<T>(
  cursor: string,
  read: (payload: Record<string, unknown>) => T | undefined,
  detail = 'The cursor is not a next_cursor of this list',
): T {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    payload = undefined;
  }
  const value =
    payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? read(payload as Record<string, unknown>)
      : undefined;
  if (value === undefined)
    throw new AppError('validation_failed', detail, {
      errors: [{ path: '/querystring/cursor', message: 'is invalid' }],
    });
  return value;
}
