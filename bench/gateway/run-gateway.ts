import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatGatewayCpu,
  formatGatewayFindings,
  formatGatewayHeader,
  formatGatewayMemory,
  formatGatewayTable,
  formatGatewayTargets,
  gatewayJson,
} from './report.ts';
import { type GatewayOptions, runGateway } from './session.ts';
import { judgeGateway } from './targets.ts';

export interface GatewayOutcome {
  /** A run or a check failed, or a process did not stop cleanly. */
  readonly broken: boolean;
  readonly missed: boolean;
  readonly json: ReturnType<typeof gatewayJson>;
}

/** The chat gateway's part of `npm run bench`: runs it and prints its tables on `out`. */
export async function benchGateway(
  options: GatewayOptions,
  out: (text: string) => void,
): Promise<GatewayOutcome> {
  const dir = join(options.dir, 'gateway');
  mkdirSync(dir, { recursive: true });
  out(formatGatewayHeader(options));
  out('');
  const results = await runGateway({ ...options, dir });
  const judgements = judgeGateway(results);
  out(formatGatewayTable(results));
  out('');
  out(formatGatewayMemory(results));
  out('');
  out(formatGatewayTargets(judgements));
  out('');
  out(formatGatewayCpu(results));
  out('');
  out(formatGatewayFindings(results, judgements));
  const failed =
    !results.memoryRead.ok ||
    [...results.load, ...results.firstChunk, ...results.pacing].some((run) => !run.result.ok);
  return {
    broken: failed || results.problems.length > 0,
    missed: judgements.some((j) => j.verdict === 'miss'),
    json: gatewayJson(results, judgements),
  };
}
