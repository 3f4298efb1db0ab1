import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { InventoryResponse } from './reports.schemas.js';

export const reportsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { reports } = services;

  app.get(
    '/reports/inventory',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'Inventory report: what is held, where, and how much a person has checked',
        description:
          'Totals by review state, fields and confirmations per level, per data source (fields per level, confirmed, high_risk = unreviewed fields of severity high) ' +
          'and per tag. Counted by aggregate queries over the whole catalog (sample data sources included, marked is_sample). Read-only.',
        tags: ['reports'],
        response: { 200: InventoryResponse },
      },
    },
    async () => reports.inventory(),
  );
};
