import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USAGE_CSV_COLUMNS } from '../usage/usage.csv.ts';
import { type OAuthServer, startOAuthServer } from './oauth-server.ts';

/** The gateway's configuration file, as docs/design.md §4 gives its format. */
export interface GatewayFile {
  readonly providers: Record<string, { kind: string; baseUrl: string; apiKeyEnv: string }>;
  readonly models: readonly Record<string, unknown>[];
  readonly router?: { id: string; order: string[] };
}

export interface GatewayServer {
  readonly server: OAuthServer;
  /** `http://127.0.0.1:PORT/v1`: what an OpenAI client takes as its base URL. */
  readonly baseUrl: string;
  /** An API key of `orgId`, for `Authorization: Bearer …`. */
  readonly apiKey: string;
  readonly orgId: string;
  /** The organization's owner, whose key `apiKey` is: their platform credential's headers. */
  readonly owner: { readonly id: string; readonly headers: Record<string, string> };
  /** `GET /api/v1/usage` of the organization, grouped as asked: its groups. */
  usage(groupBy?: 'day' | 'model' | 'key' | 'kind'): Promise<UsageRow[]>;
  /** `GET /api/v1/usage` of the organization, grouped as asked: the whole answer. */
  usageReport(
    groupBy?: 'day' | 'model' | 'key' | 'kind',
  ): Promise<{ totals: UsageRow; groups: UsageRow[]; [field: string]: unknown }>;
  /**
   * Every recorded call, oldest first, from `GET /api/v1/usage/export.csv`, once `until` holds
   * of them (usage is written just after the answer went out), or after about two seconds.
   */
  calls(until?: (calls: readonly RecordedCall[]) => boolean): Promise<RecordedCall[]>;
  /** `GET /api/v1/usage/export.csv` of the organization, as it is now: the whole text. */
  usageCsv(): Promise<string>;
  close(): Promise<void>;
}

export interface RecordedCall {
  readonly model: string;
  readonly provider: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** As the export writes it: `0.004800`, or empty when the cost is not known. */
  readonly costUsd: string;
  readonly status: number;
  /** `chat`, or `extraction` for a call that learned memories from one. */
  readonly kind: string;
}

export interface UsageRow {
  readonly key?: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Of the completion tokens, those reasoning models spent thinking. */
  readonly reasoningTokens: number;
  readonly totalTokens: number;
  /** Null when no call of the group has a known cost. */
  readonly costUsd: number | null;
  readonly unpricedRequests: number;
  readonly [field: string]: unknown;
}

/**
 * The whole service on a loopback port with `file` as its gateway configuration and `env`
 * (provider keys among it), an organization and an API key of it. Without a file, the catalog
 * is what `env` switches on (the conventional variables), or empty.
 *
 * @example
 * const gateway = await startGatewayServer(fileFor(sim), { SIM_KEY: 'sk-sim' });
 * const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey });
 */
export async function startGatewayServer(
  file: GatewayFile | undefined,
  env: Record<string, string> = {},
): Promise<GatewayServer> {
  let located: Record<string, string> = {};
  if (file) {
    const path = join(mkdtempSync(join(tmpdir(), 'mnemo-gateway-')), 'mnemo.config.json');
    writeFileSync(path, JSON.stringify(file));
    located = { MNEMO_CONFIG: path };
  }
  const server = await startOAuthServer({ ...located, ...env });
  const orgId = await server.t.fixtures.org();
  const owner = await server.t.fixtures.user(orgId, 'owner');
  const platform = { authorization: `Bearer ${owner.token}`, 'x-organization-id': orgId };
  const created = await fetch(`${server.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { ...platform, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'gateway tests' }),
  });
  if (created.status !== 201) throw new Error(`API key not created: ${created.status}`);
  const { secret } = (await created.json()) as { secret: string };

  const usageReport = async (groupBy: 'day' | 'model' | 'key' | 'kind' = 'model') => {
    const response = await fetch(`${server.url}/api/v1/usage?groupBy=${groupBy}`, {
      headers: platform,
    });
    if (response.status !== 200) throw new Error(`usage: ${response.status}`);
    return (await response.json()) as { totals: UsageRow; groups: UsageRow[] };
  };
  const usage = async (groupBy: 'day' | 'model' | 'key' | 'kind' = 'model') =>
    (await usageReport(groupBy)).groups;
  const usageCsv = async () => {
    const response = await fetch(`${server.url}/api/v1/usage/export.csv`, { headers: platform });
    if (response.status !== 200) throw new Error(`usage export: ${response.status}`);
    return response.text();
  };

  return {
    server,
    baseUrl: `${server.url}/v1`,
    apiKey: secret,
    orgId,
    owner: { id: owner.id, headers: platform },
    usage,
    usageReport,
    usageCsv,
    async calls(until = () => true) {
      for (let tries = 0; ; tries += 1) {
        const calls = parseCalls(await usageCsv());
        if (until(calls) || tries >= 100) return calls;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => server.close(),
  };
}

/** The export's lines (no field of ours needs quoting): time, user, key, model, provider, … */
function parseCalls(csv: string): RecordedCall[] {
  return csv
    .trim()
    .split('\r\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => {
      const fields = line.split(',');
      const field = (name: (typeof USAGE_CSV_COLUMNS)[number]) =>
        fields[USAGE_CSV_COLUMNS.indexOf(name)] ?? '';
      return {
        model: field('model'),
        provider: field('provider'),
        promptTokens: Number(field('prompt_tokens')),
        completionTokens: Number(field('completion_tokens')),
        costUsd: field('cost_usd'),
        status: Number(field('status')),
        kind: field('kind'),
      };
    });
}
