import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireScope } from '../credentials/index.ts';
import {
  OrganizationHeader,
  PLATFORM_ERROR_RESPONSES,
  rulesNoSchemaStates,
} from '../platform/api-schemas.ts';
import { registerMethodNotAllowed } from '../platform/method-not-allowed.ts';
import { sendStream } from '../platform/raw-replies.ts';
import type { PlatformAuthentication } from '../tenancy/index.ts';
import { fileNameInstant, usageCsv } from './usage.csv.ts';
import { parseUsageRange, RANGE_RULES_NO_SCHEMA_STATES } from './usage.range.ts';
import { UsageCsv, UsageExportQuery, UsageQuery, UsageReport } from './usage.schemas.ts';
import type { UsageService } from './usage.service.ts';

export interface UsageRoutesDeps {
  /** The platform's checks; `member` (credential, rate, organization, account) is used. */
  readonly authenticate: Pick<PlatformAuthentication, 'member'>;
  readonly usage: UsageService;
}

const BASE = '/api/v1/usage';
const EXPORT = `${BASE}/export.csv`;

const errors = PLATFORM_ERROR_RESPONSES;

/**
 * `GET /api/v1/usage` (sums by day, model or key) and `GET /api/v1/usage/export.csv` (every
 * call), for the calls of the chat interface in a range that the caller may see.
 */
export function registerUsageRoutes(parent: FastifyInstance, deps: UsageRoutesDeps): void {
  const service = deps.usage;

  parent.register(async (scoped) => {
    const app = scoped.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', deps.authenticate.member);
    app.addHook('onRequest', requireScope('usage'));

    const common = {
      tags: ['usage'],
      headers: OrganizationHeader,
      security: [{ platformCredential: ['usage'] }],
    };

    app.get(
      BASE,
      {
        schema: {
          ...common,
          summary: 'Usage of the chat interface in a range, summed by day, model or API key',
          description: rulesNoSchemaStates(RANGE_RULES_NO_SCHEMA_STATES),
          querystring: UsageQuery,
          response: { 200: UsageReport, ...errors },
        },
      },
      (request) =>
        service.report(
          request.caller,
          parseUsageRange(request.query),
          request.query.groupBy ?? 'day',
        ),
    );

    app.get(
      EXPORT,
      {
        schema: {
          ...common,
          summary: 'Every call of the chat interface in a range, as CSV',
          description: rulesNoSchemaStates(RANGE_RULES_NO_SCHEMA_STATES),
          querystring: UsageExportQuery,
          response: { 200: UsageCsv, ...errors },
        },
      },
      async (request, reply) => {
        const range = parseUsageRange(request.query);
        const pages = service.records(request.caller, range);
        // The first page is read before anything is sent: a store that fails now still gets
        // its 503; one that fails later cuts the download short, which the client sees.
        const first = await pages.next();
        const name = `mnemo-usage-${fileNameInstant(range.from)}-${fileNameInstant(range.to)}.csv`;
        return sendStream(
          reply,
          'text/csv; charset=utf-8',
          Readable.from(usageCsv(resume(first, pages))),
          { 'content-disposition': `attachment; filename="${name}"` },
        );
      },
    );
  });

  registerMethodNotAllowed(parent, BASE, ['GET']);
  registerMethodNotAllowed(parent, EXPORT, ['GET']);
}

/** The pages of an iterator whose first result was already taken. */
async function* resume<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncGenerator<T> {
  for (let next = first; !next.done; next = await rest.next()) yield next.value;
}
