import type { Catalog, ModelConfig } from './catalog.ts';
import type { ChatRequest } from './chat.schemas.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import { GatewayError } from './openai-errors.ts';
import {
  type ChatChunk,
  type ChatCompletion,
  type Outcome,
  type Provider,
  type ProviderCall,
  type UpstreamFailure,
  UpstreamStreamError,
} from './provider.ts';
import { genericError } from './providers/upstream-failure.ts';
import { describeNeeds, planRoute, type RoutePlan, requestFor } from './router.ts';
import { callerErrorOf, isRetryable, retryAfterHeaders } from './upstream-errors.ts';

export interface DispatchDeps {
  readonly catalog: Catalog;
  /** Each configured provider by name. */
  readonly providers: ReadonlyMap<string, Provider>;
  readonly breaker: CircuitBreaker;
}

/** Which model answered, and the headers that say so and why it was chosen. */
export interface Routed {
  readonly model: ModelConfig;
  readonly headers: Readonly<Record<string, string>>;
}

export type Dispatched<T> =
  | ({ readonly ok: true; readonly value: T } & Routed)
  | {
      readonly ok: false;
      /** What the caller gets, routing headers included. */
      readonly error: GatewayError;
      /** The model tried last, which the failed call is recorded under; none when none was. */
      readonly model: ModelConfig | undefined;
    };

/**
 * Sends a chat request to the model it names, or for the router to the first model in the
 * operator's order that can serve it and whose provider's circuit is closed; on a connection
 * error, a timeout, a 429 or a 5xx — all before anything reached the client — the router tries
 * the next. A stream counts as begun once its first chunk arrived, so a provider that fails
 * before that is passed over too.
 *
 * @example
 * const dispatched = await dispatcher.stream(request, signal);
 * if (!dispatched.ok) throw dispatched.error;
 * reply.headers(dispatched.headers);
 * for await (const chunk of dispatched.value) write(chunk);
 */
export interface Dispatcher {
  complete(request: ChatRequest, signal: AbortSignal): Promise<Dispatched<ChatCompletion>>;
  stream(request: ChatRequest, signal: AbortSignal): Promise<Dispatched<AsyncIterable<ChatChunk>>>;
}

export function createDispatcher(deps: DispatchDeps): Dispatcher {
  const { catalog, providers, breaker } = deps;

  async function dispatch<T>(
    request: ChatRequest,
    signal: AbortSignal,
    run: (provider: Provider, call: ProviderCall) => Promise<Outcome<T>>,
  ): Promise<Dispatched<T>> {
    const plan = planRoute(request, catalog);
    if (plan instanceof GatewayError) return { ok: false, error: plan, model: undefined };
    const passedOver = [...plan.leftOut];
    let last: { failure: UpstreamFailure; model: ModelConfig } | undefined;
    let reopensInMs = Number.POSITIVE_INFINITY;

    for (const model of plan.candidates) {
      // A model named directly is tried whatever its circuit says: the caller chose it.
      if (plan.router && !breaker.admits(model.provider)) {
        reopensInMs = Math.min(reopensInMs, breaker.reopensInMs(model.provider) ?? 0);
        passedOver.push(`${model.id}: provider ${model.provider} is failing, circuit open`);
        continue;
      }
      const provider = providers.get(model.provider);
      if (!provider) throw new Error(`no provider ${model.provider} for ${model.id}`);
      const outcome = await run(provider, { request: requestFor(request, model), model, signal });
      if (outcome.ok) {
        breaker.succeeded(model.provider);
        return {
          ok: true,
          value: outcome.value,
          model,
          headers: routeHeaders(plan, model, passedOver),
        };
      }
      const { failure } = outcome;
      const retryable = isRetryable(failure);
      if (retryable && !signal.aborted) {
        breaker.failed(
          model.provider,
          failure.kind === 'status' ? failure.retryAfterMs : undefined,
        );
      }
      last = { failure, model };
      passedOver.push(`${model.id}: ${describeFailure(failure)}`);
      if (!plan.router || !retryable || signal.aborted) break;
    }

    if (!last) {
      // Every model that could serve it sits behind an open circuit.
      const waitMs = Number.isFinite(reopensInMs) ? reopensInMs : 1000;
      const error = new GatewayError(
        503,
        {
          message: `Every model of the router \`${catalog.router.id}\` that can serve this request is failing; retry shortly.`,
          type: 'api_error',
          param: null,
          code: 'model_not_available',
        },
        { 'x-should-retry': 'true', ...retryAfterHeaders(waitMs), ...explain(plan, passedOver) },
      );
      return { ok: false, error, model: undefined };
    }
    const error = callerErrorOf(last.failure, last.model.provider);
    const headers = {
      ...error.headers,
      'x-mnemo-model': last.model.id,
      'x-mnemo-provider': last.model.provider,
      ...explain(plan, passedOver),
    };
    return {
      ok: false,
      error: new GatewayError(error.status, error.body.error, headers),
      model: last.model,
    };
  }

  return {
    complete: (request, signal) =>
      dispatch(request, signal, (provider, call) => provider.complete(call)),
    stream: (request, signal) =>
      dispatch(request, signal, async (provider, call) => {
        const started = await provider.stream(call);
        if (!started.ok) return started;
        // A stream that breaks after it began counts against its provider, as a failed call
        // before it did; one the caller walked away from does not.
        return begin(started.value, () => {
          if (!signal.aborted) breaker.failed(call.model.provider);
        });
      }),
  };
}

/**
 * Waits for a stream's first chunk: a provider that fails before it can still be passed over,
 * since nothing reached the client yet.
 */
async function begin(
  stream: AsyncIterable<ChatChunk>,
  brokeLater: () => void,
): Promise<Outcome<AsyncIterable<ChatChunk>>> {
  const iterator = stream[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    if (first.done) {
      return streamFailure(genericError(502, 'The provider’s stream ended before it began.'));
    }
    return { ok: true, value: resume(first.value, iterator, brokeLater) };
  } catch (error) {
    await iterator.return?.().catch(() => {});
    return error instanceof UpstreamStreamError
      ? streamFailure(error.error, error.status)
      : streamFailure(genericError(502, 'The connection to the provider was lost.'));
  }
}

const streamFailure = (error: UpstreamStreamError['error'], status = 502): Outcome<never> => ({
  ok: false,
  failure: { kind: 'status', status, error },
});

async function* resume(
  first: ChatChunk,
  iterator: AsyncIterator<ChatChunk>,
  broke: () => void,
): AsyncGenerator<ChatChunk> {
  try {
    yield first;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield next.value;
    }
  } catch (error) {
    broke();
    throw error;
  } finally {
    await iterator.return?.();
  }
}

function describeFailure(failure: UpstreamFailure): string {
  switch (failure.kind) {
    case 'unreachable':
      return 'provider unreachable';
    case 'timeout':
      return 'provider timed out';
    case 'key-refused':
      return `provider refused its key (${failure.status})`;
    case 'status':
      return `provider answered ${failure.status}`;
  }
}

/** `x-mnemo-model` and `x-mnemo-provider` name who answered; `x-mnemo-route` says why. */
function routeHeaders(plan: RoutePlan, model: ModelConfig, passedOver: readonly string[]) {
  return {
    'x-mnemo-model': model.id,
    'x-mnemo-provider': model.provider,
    ...explain(plan, passedOver, model),
  };
}

function explain(plan: RoutePlan, passedOver: readonly string[], chosen?: ModelConfig) {
  if (!plan.router) return { 'x-mnemo-route': 'requested by name' };
  const which = !plan.needs.reasoning
    ? 'first'
    : chosen?.reasoning
      ? 'first reasoning model'
      : 'no reasoning model answered; first other model, without reasoning_effort,';
  const choice = chosen
    ? `${chosen.id}: ${which} in the router's order that can serve it and answered (${describeNeeds(plan.needs)})`
    : `none answered (${describeNeeds(plan.needs)})`;
  const rest = passedOver.length > 0 ? `; passed over ${passedOver.join('; ')}` : '';
  return { 'x-mnemo-route': `${choice}${rest}` };
}
