/**
 * Walks every API route registered in the app with every role and with no token, and checks
 * 401 / 403 / allowed against the access table. A new route without a permission cannot start
 * (see authentication.ts), and a route whose guard disagrees with the table fails here.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { ACCESS_TABLE, ROLES, type Role } from '../../src/http/access.js';
import { adminToken, bearer, buildTestApp, createUser, login, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

function concreteUrl(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, randomUUID());
}

describeEachDatabase('access matrix', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('every API route declares an access rule, and the table covers the spec routes', () => {
    const api = t.app.accessRules.filter((r) => r.url.startsWith('/api/'));
    assert.ok(api.length >= 8, `found ${api.length} API routes`);
    const byRoute = new Map(api.map((r) => [`${r.method} ${r.url}`, r.access]));
    assert.equal(byRoute.get('POST /api/v1/auth/login'), 'public');
    assert.equal(byRoute.get('POST /api/v1/auth/refresh'), 'public');
    assert.equal(byRoute.get('GET /api/v1/auth/me'), 'authenticated');
    // Reports and bulk decisions: whoever may list fields may export them and read the inventory;
    // uploading decisions is reviewing.
    assert.equal(byRoute.get('GET /api/v1/fields/export'), 'field:read');
    assert.equal(byRoute.get('GET /api/v1/reports/inventory'), 'field:read');
    assert.equal(byRoute.get('POST /api/v1/fields/decisions'), 'field:review');
    // API tokens: any signed-in user manages its own (the service checks user:read / user:write for others').
    assert.equal(byRoute.get('POST /api/v1/tokens'), 'authenticated');
    assert.equal(byRoute.get('GET /api/v1/tokens'), 'authenticated');
    assert.equal(byRoute.get('DELETE /api/v1/tokens/:id'), 'authenticated');
  });

  it('grants scan:run to superadmin, admin and dba, and scan:read to every role', () => {
    assert.deepEqual([...ACCESS_TABLE['scan:run']], ['superadmin', 'admin', 'dba']);
    assert.deepEqual([...ACCESS_TABLE['scan:read']], [...ROLES]);
  });

  it('grants webhook:write to superadmin and admin only, and the webhook routes need it', () => {
    assert.deepEqual([...ACCESS_TABLE['webhook:write']], ['superadmin', 'admin']);
    const byRoute = new Map(t.app.accessRules.map((r) => [`${r.method} ${r.url}`, r.access]));
    for (const route of [
      'GET /api/v1/webhooks',
      'POST /api/v1/webhooks',
      'PATCH /api/v1/webhooks/:id',
      'DELETE /api/v1/webhooks/:id',
      'GET /api/v1/webhooks/:id/deliveries',
      'POST /api/v1/webhooks/:id/test',
    ]) {
      assert.equal(byRoute.get(route), 'webhook:write', route);
    }
  });

  it('answers 401 without a token, 403 without the permission, and lets the permitted roles through', async () => {
    const routes = t.app.accessRules.filter(
      (r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && r.access !== 'public',
    );
    const probe = (method: string, url: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: method as 'GET',
        url: concreteUrl(url),
        headers,
        ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: {} } : {}),
      });

    for (const route of routes) {
      const response = await probe(route.method, route.url);
      assert.equal(response.statusCode, 401, `${route.method} ${route.url} without a token`);
    }

    // One user whose roles change between rounds, so the matrix does not depend on the user quota.
    const subject = await createUser(t.app, ['observer']);
    const admin = await adminToken(t.app);
    for (const role of ROLES) {
      let token: string;
      if (role === 'superadmin') {
        token = admin;
      } else {
        const changed = await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${subject.id}`,
          headers: bearer(admin),
          payload: { roles: [role] },
        });
        assert.equal(changed.statusCode, 200);
        token = (await login(t.app, subject.username, subject.password)).access_token;
      }
      for (const route of routes) {
        const response = await probe(route.method, route.url, bearer(token));
        const access = route.access;
        if (access === 'public') continue;
        const allowed = access === 'authenticated' || (ACCESS_TABLE[access] as readonly Role[]).includes(role);
        const where = `${role} → ${route.method} ${route.url} (${route.access}) answered ${response.statusCode} ${response.body.slice(0, 120)}`;
        if (allowed) assert.ok(response.statusCode !== 401 && response.statusCode !== 403, where);
        else assert.equal(response.statusCode, 403, where);
      }
    }

    // An API token of the superadmin given two permissions passes only the routes those permissions (or any sign-in)
    // open: the token narrows the matrix, whatever the user's roles.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: bearer(admin),
      payload: { name: 'matrix', expires_in_days: 1, permissions: ['field:read', 'scan:read'] },
    });
    assert.equal(created.statusCode, 201);
    const apiToken = (JSON.parse(created.body) as { token: string }).token;
    for (const route of routes) {
      const response = await probe(route.method, route.url, bearer(apiToken));
      const allowed = route.access === 'authenticated' || route.access === 'field:read' || route.access === 'scan:read';
      const where = `API token → ${route.method} ${route.url} (${route.access}) answered ${response.statusCode} ${response.body.slice(0, 120)}`;
      if (allowed) assert.ok(response.statusCode !== 401 && response.statusCode !== 403, where);
      else assert.equal(response.statusCode, 403, where);
    }
  });
});
