/**
 * GET /verify.html: the offline report verifier (`../verifyPage.ts`), built in memory on first request
 * and kept. It is answered with its own Content-Security-Policy instead of the gateway's (which forbids
 * inline script and style): its script and style by their SHA-256, and no connection at all. A person
 * saves it and opens it from the file, offline; the dashboard links it beside each report.
 */
import type { FastifyPluginAsync } from 'fastify';
import { buildVerifyPage, type VerifyPage } from '../verifyPage.ts';

export const verifyPagePlugin: FastifyPluginAsync = async (app) => {
  let built: Promise<VerifyPage> | undefined;
  app.get('/verify.html', { schema: { hide: true } }, async (req, reply) => {
    built ??= buildVerifyPage();
    let page: VerifyPage;
    try {
      page = await built;
    } catch (e) {
      built = undefined;
      req.log.error({ err: e }, 'building verify.html failed');
      throw new Error(`building verify.html failed: ${(e as Error).message}`);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', page.headerCsp)
      .header('cache-control', 'no-cache')
      .send(page.html);
  });
};
