import type { Catalog, ModelConfig, ProviderKind } from './catalog.ts';
import type { ChatRequest } from './chat.schemas.ts';
import { type GatewayError, invalidRequest } from './openai-errors.ts';
import { estimatePromptTokens } from './providers/token-estimate.ts';
import { isEmptyCatalog, SETUP_HINT, unknownModel } from './setup-guidance.ts';

/** What a request asks of the model that serves it. */
export interface Needs {
  readonly vision: boolean;
  readonly tools: boolean;
  readonly jsonOutput: boolean;
  /** Estimated prompt tokens plus the completion tokens the request allows. */
  readonly tokens: number;
  /** Choices asked for (`n`). */
  readonly choices: number;
  /** `reasoning_effort` set, and not `none`: the client asked the model to reason. */
  readonly reasoning: boolean;
}

/** The models to try, in order, and why: what the `x-mnemo-route` header explains. */
export interface RoutePlan {
  readonly router: boolean;
  readonly candidates: readonly ModelConfig[];
  readonly needs: Needs;
  /** Models of the router's order left out, each with why (`openai/gpt-4.1-mini: no vision`). */
  readonly leftOut: readonly string[];
}

export function needsOf(request: ChatRequest): Needs {
  const format = request.response_format?.type;
  return {
    vision: request.messages.some(
      (message) =>
        message.role === 'user' &&
        Array.isArray(message.content) &&
        message.content.some((part) => part.type === 'image_url'),
    ),
    tools: (request.tools?.length ?? 0) > 0,
    jsonOutput: format === 'json_object' || format === 'json_schema',
    choices: request.n ?? 1,
    reasoning: wantsReasoning(request),
    tokens:
      estimatePromptTokens(request) + (request.max_completion_tokens ?? request.max_tokens ?? 0),
  };
}

const wantsReasoning = (request: ChatRequest) =>
  request.reasoning_effort !== undefined &&
  request.reasoning_effort !== null &&
  request.reasoning_effort !== 'none';

/**
 * The request as `model` takes it: a model that does not reason gets no `reasoning_effort`
 * (OpenAI's API refuses it, even `none`, on such a model). Only the router sends a request
 * asking for reasoning to such a model, when no reasoning model of its order answered.
 */
export function requestFor(request: ChatRequest, model: ModelConfig): ChatRequest {
  if (model.reasoning || request.reasoning_effort === undefined) return request;
  const { reasoning_effort: _dropped, ...rest } = request;
  return rest as ChatRequest;
}

/** Provider kinds whose API has no `n`: one choice per call. */
const ONE_CHOICE_KINDS: ReadonlySet<ProviderKind> = new Set(['anthropic']);

/** Why `model` (of a provider of `kind`) cannot serve `needs`, or undefined when it can. */
export function unmetNeed(
  model: ModelConfig,
  kind: ProviderKind,
  needs: Needs,
): string | undefined {
  if (needs.choices > 1 && ONE_CHOICE_KINDS.has(kind)) return 'one choice per call (no n)';
  if (needs.vision && !model.vision) return 'no vision';
  if (needs.tools && !model.tools) return 'no tool calling';
  if (needs.jsonOutput && !model.jsonOutput) return 'no JSON output';
  if (needs.tokens > model.contextWindow) {
    return `prompt of ~${needs.tokens} tokens exceeds its ${model.contextWindow}-token window`;
  }
  return undefined;
}

/**
 * The models that may serve the request. A model id names one model, which must have what the
 * request needs (images, tools, JSON output; its own provider judges the context window). The
 * router id names the router's order, less the models that cannot serve the request; the
 * circuit breaker is consulted later, as each is tried.
 *
 * @example
 * const plan = planRoute(request, catalog);
 * if (plan instanceof GatewayError) throw plan;
 * for (const model of plan.candidates) { … }
 */
export function planRoute(request: ChatRequest, catalog: Catalog): RoutePlan | GatewayError {
  const needs = needsOf(request);
  if (request.model !== catalog.router.id) {
    const model = catalog.models.find((candidate) => candidate.id === request.model);
    if (!model) return unknownModel(request.model, catalog);
    const unmet = unmetCapability(model, needs);
    if (unmet) return unmet;
    return { router: false, candidates: [model], needs, leftOut: [] };
  }
  const candidates: ModelConfig[] = [];
  const leftOut: string[] = [];
  for (const id of catalog.router.order) {
    const model = catalog.models.find((candidate) => candidate.id === id);
    if (!model) continue;
    const kind = catalog.providers.get(model.provider)?.kind ?? 'openai';
    const why = unmetNeed(model, kind, needs);
    if (why) leftOut.push(`${model.id}: ${why}`);
    else candidates.push(model);
  }
  if (needs.reasoning) {
    // Reasoning asked of the router: its reasoning models first, each in the operator's order,
    // then the others without `reasoning_effort`. A client naming `auto` cannot know which
    // models reason: an answer without reasoning serves it better than OpenAI's 400, which
    // stays for a model named directly.
    candidates.sort((a, b) => Number(b.reasoning) - Number(a.reasoning));
  }
  if (candidates.length === 0) {
    return invalidRequest(
      `No model of the router \`${catalog.router.id}\` can serve this request (${describeNeeds(needs)}): ${leftOut.join('; ') || noModels(catalog)}.`,
      'model_not_available',
      'model',
    );
  }
  return { router: true, candidates, needs, leftOut };
}

/** A model named directly must take what the request sends it; OpenAI says so with a 400. */
function unmetCapability(model: ModelConfig, needs: Needs): GatewayError | undefined {
  if (needs.reasoning && !model.reasoning) {
    // OpenAI's own answer to `reasoning_effort` on a model that does not reason, word for word;
    // `/v1/responses` gets it too, its `reasoning.effort` being translated to this parameter.
    return invalidRequest(
      "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      'unsupported_parameter',
      'reasoning_effort',
    );
  }
  if (needs.vision && !model.vision) {
    return invalidRequest(
      `The model \`${model.id}\` does not take images; send text only, or choose a model with vision.`,
      'model_not_capable',
      'messages',
    );
  }
  if (needs.tools && !model.tools) {
    return invalidRequest(
      `The model \`${model.id}\` does not call tools.`,
      'model_not_capable',
      'tools',
    );
  }
  if (needs.jsonOutput && !model.jsonOutput) {
    return invalidRequest(
      `The model \`${model.id}\` does not support response_format; use text output.`,
      'model_not_capable',
      'response_format',
    );
  }
  return undefined;
}

/** Why a router's order holds no model: nothing configured, or an order left empty. */
function noModels(catalog: Catalog): string {
  return isEmptyCatalog(catalog)
    ? `the router has no models, because this server has none configured: ${SETUP_HINT}`
    : 'the router has no models: its order in the configuration file is empty';
}

export function describeNeeds(needs: Needs): string {
  const wanted = [
    needs.vision && 'images',
    needs.tools && 'tools',
    needs.jsonOutput && 'JSON output',
    needs.reasoning && 'reasoning',
    `~${needs.tokens} tokens`,
  ].filter(Boolean);
  return `needs ${wanted.join(', ')}`;
}
