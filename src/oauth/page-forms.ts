import type { FastifyInstance, FastifyReply } from 'fastify';
import { findTextProblem } from '../platform/storable-text.ts';

/**
 * What every scope of pages with forms under /oauth shares: form bodies parsed into a record of
 * strings, held to the text rule (storable-text.ts: what is looked up or stored must be kept as
 * sent), refused with `refuse(message)`; and the pages' security headers on every answer.
 */
export function registerPageForms(
  app: FastifyInstance,
  o: {
    readonly securityHeaders: Readonly<Record<string, string>>;
    readonly refuse: (message: string) => Error;
  },
): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const form = Object.fromEntries(new URLSearchParams(body as string));
      const bad = findTextProblem(form);
      if (bad) done(o.refuse(`${bad.path.slice(1)} ${bad.problem}`));
      else done(null, form);
    },
  );
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(o.securityHeaders);
  });
}

/** A whole HTML page as the answer. */
export function sendPage(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}
