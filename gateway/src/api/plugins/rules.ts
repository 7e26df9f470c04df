import type { FastifyPluginAsync } from 'fastify';
import { rulesResponseSchema } from '../../../../shared/src/rules.ts';
import { ruleCatalogue } from '../../rules/index.ts';
import type { ApiContext } from '../context.ts';
import { openapi } from '../query.ts';

/** GET /api/rules: the rules, their labels, laws and duties (the dashboard's words for them). */
export const rulesPlugin: FastifyPluginAsync<{ ctx: Pick<ApiContext, 'auth'> }> = async (app, { ctx }) => {
  const catalogue = rulesResponseSchema.parse(ruleCatalogue());
  app.get(
    '/api/rules',
    {
      schema: {
        tags: ['alerts'],
        summary: 'The rules: label, description, law, whether an extension is allowed, what meets them',
        response: { 200: openapi(rulesResponseSchema) },
      },
    },
    async (req) => {
      ctx.auth.requireRead(req);
      return catalogue;
    },
  );
};
