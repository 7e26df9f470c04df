import type { FastifyPluginAsync } from 'fastify';
import { rulesResponseSchema } from '../../../../shared/src/rules.ts';
import { ruleCatalogue } from '../../rules/index.ts';
import type { ApiContext } from '../context.ts';
import { route } from '../routes.ts';

/** GET /api/rules: the rules, their labels, laws and duties (the dashboard's words for them). */
/** What the rules route uses. */
export type RulesServices = Pick<ApiContext, 'auth'>;

export const rulesPlugin: FastifyPluginAsync<RulesServices> = async (app, ctx) => {
  const catalogue = rulesResponseSchema.parse(ruleCatalogue());
  app.route(
    route(
      'GET /api/rules',
      {
        schema: {
          tags: ['alerts'],
          summary: 'The rules: label, description, law, whether an extension is allowed, what meets them',
        },
      },
      async (req) => {
        ctx.auth.readPublic(req);
        return catalogue;
      },
    ),
  );
};
