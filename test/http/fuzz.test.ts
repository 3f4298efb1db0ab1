import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fuzz, type OpenApiDocument } from '../../bench/reliability/fuzz.js';
import { adminToken, buildTestApp, json } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

/** Cases per operation here (seeded, so a failure reproduces); bench/reliability.ts runs them all. */
const CASES_PER_OPERATION = 40;

describeEachDatabase('fuzzing every operation of /openapi.json', (kind) => {
  it('answers malformed input with 4xx problem+json, never a 5xx', async () => {
    const t = await buildTestApp(kind);
    try {
      const doc = json<OpenApiDocument>(await t.app.inject({ method: 'GET', url: '/openapi.json' }));
      const token = await adminToken(t.app);
      const report = await fuzz({
        doc,
        token,
        casesPerOperation: CASES_PER_OPERATION,
        seed: 19,
        send: async (request) => {
          const response = await t.app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers: request.headers,
            ...(request.payload === undefined ? {} : { payload: request.payload }),
          });
          return { status: response.statusCode, headers: response.headers, body: response.body };
        },
      });
      assert.ok(report.operations >= 25, `walked ${report.operations} operations`);
      assert.deepEqual(
        report.failures.slice(0, 5),
        [],
        `${report.failures.length} of ${report.requests} requests broke the rule`,
      );
      assert.ok(
        (report.byStatus['400'] ?? 0) > report.requests / 3,
        `most malformed input is a 400: ${JSON.stringify(report.byStatus)}`,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode,
        200,
        'the service is still ready',
      );
    } finally {
      await t.close();
    }
  });
});
