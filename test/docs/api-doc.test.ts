// docs/api.md is what client authors read: its roles table and its error codes must say what the code does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ACCESS_TABLE, PERMISSIONS, ROLES } from '../../src/http/access.js';
import { ERROR_CODES, type ErrorCode } from '../../src/http/errors.js';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

test('the roles × permissions table of docs/api.md is the access table', () => {
  const header = doc.split('\n').find((line) => line.startsWith('| Permission |'));
  assert.ok(header, 'no roles table');
  const roles = header
    .split('|')
    .map((c) => c.trim())
    .slice(3, -1);
  assert.deepEqual(roles, [...ROLES]);
  const documented = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const match = /^\| `([a-z]+:[a-z]+)` \|[^|]*\|(.*)\|$/.exec(line);
    if (!match) continue;
    const cells = match[2]!.split('|').map((c) => c.trim());
    documented.set(
      match[1]!,
      roles.filter((_, i) => cells[i] === '✓'),
    );
  }
  assert.deepEqual([...documented.keys()], PERMISSIONS);
  for (const permission of PERMISSIONS)
    assert.deepEqual(documented.get(permission), [...ACCESS_TABLE[permission]], permission);
});

test('every error code the service answers is in the error table of docs/api.md, with its status', () => {
  // method_not_allowed is reserved: no route answers it.
  const answered = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => code !== 'method_not_allowed');
  for (const code of answered) {
    assert.match(doc, new RegExp(`^\\| ${ERROR_CODES[code].status} \\| \`${code}\` \\|`, 'm'), code);
  }
});
