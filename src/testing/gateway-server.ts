import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OAuthServer, startOAuthServer } from './oauth-server.ts';

/** The gateway's configuration file, as DESIGN.md section 4 gives its format. */
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
  /** `GET /api/v1/usage` of the organization, grouped as asked. */
  usage(groupBy?: 'day' | 'model' | 'key'): Promise<UsageRow[]>;
  /**
   * Every recorded call, oldest first, from `GET /api/v1/usage/export.csv`, once `until` holds
   * of them (usage is written just after the answer went out), or after about two seconds.
   */
  calls(until?: (calls: readonly RecordedCall[]) => boolean): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

export interface RecordedCall {
  readonly model: string;
  readonly provider: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly costUsd: string;
  readonly status: number;
}

export interface UsageRow {
  readonly key?: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly [field: string]: unknown;
}

/**
 * The whole service on a loopback port with `file` as its gateway configuration and `env`
 * (provider keys among it), an organization and an API key of it.
 *
 * @example
 * const gateway = await startGatewayServer(fileFor(sim), { SIM_KEY: 'sk-sim' });
 * const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey });
 */
export async function startGatewayServer(
  file: GatewayFile,
  env: Record<string, string> = {},
): Promise<GatewayServer> {
  const path = join(mkdtempSync(join(tmpdir(), 'mnemo-gateway-')), 'mnemo.config.json');
  writeFileSync(path, JSON.stringify(file));
  const server = await startOAuthServer({ MNEMO_CONFIG: path, ...env });
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

  const usage = async (groupBy: 'day' | 'model' | 'key' = 'model') => {
    const response = await fetch(`${server.url}/api/v1/usage?groupBy=${groupBy}`, {
      headers: platform,
    });
    if (response.status !== 200) throw new Error(`usage: ${response.status}`);
    return ((await response.json()) as { groups: UsageRow[] }).groups;
  };

  return {
    server,
    baseUrl: `${server.url}/v1`,
    apiKey: secret,
    orgId,
    usage,
    async calls(until = () => true) {
      for (let tries = 0; ; tries += 1) {
        const response = await fetch(`${server.url}/api/v1/usage/export.csv`, {
          headers: platform,
        });
        if (response.status !== 200) throw new Error(`usage export: ${response.status}`);
        const calls = parseCalls(await response.text());
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
      const [, , , model = '', provider = '', prompt, completion, , cost = '', , status] =
        line.split(',');
      return {
        model,
        provider,
        promptTokens: Number(prompt),
        completionTokens: Number(completion),
        costUsd: cost,
        status: Number(status),
      };
    });
}
