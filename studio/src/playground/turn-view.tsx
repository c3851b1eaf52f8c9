import { formatInteger } from '../ui/format.ts';
import type { Routing, Usage } from './gateway-calls.ts';
import { gatewayFailure } from './gateway-failure.ts';
import type { RecalledMemory } from './recalled-memories.ts';

/** The memories an answer recalled: their ids at once, their texts once listed. */
export interface Remembered {
  readonly ids: readonly string[];
  readonly memories?: readonly RecalledMemory[];
  /** Why their texts could not be listed. */
  readonly error?: unknown;
}

/** One exchange: the person's message and the model's answer as it streams in. */
export interface Turn {
  readonly id: string;
  readonly message: string;
  /** The model asked for: a catalog id, or the router's. */
  readonly asked: string;
  readonly answer: string;
  readonly status: 'waiting' | 'streaming' | 'done' | 'stopped' | 'failed';
  readonly routing?: Routing;
  readonly usage?: Usage;
  readonly error?: unknown;
  /** Set when the call used memory (`x-mnemo-memories`). */
  readonly remembered?: Remembered;
}

/** Answers are shown as text, never as HTML: a model's output is not the studio's markup. */
export function TurnView({ turn }: { turn: Turn }) {
  const busy = turn.status === 'waiting' || turn.status === 'streaming';
  return (
    <li className="turn">
      <div className="bubble from-person">
        <span className="speaker">You</span>
        <p className="bubble-text">{turn.message}</p>
      </div>
      <div className="bubble from-model" aria-busy={busy}>
        <span className="speaker">{turn.routing?.model ?? turn.asked}</span>
        {turn.answer ? <p className="bubble-text answer">{turn.answer}</p> : null}
        {turn.status === 'waiting' ? <p className="muted waiting">Waiting for the model…</p> : null}
        {turn.status === 'stopped' ? (
          <p>
            <span className="badge">Stopped</span>
          </p>
        ) : null}
        {turn.status === 'failed' ? (
          <p className="turn-error" role="alert">
            {turn.answer ? 'The answer broke off. ' : ''}
            {gatewayFailure(turn.error)}
          </p>
        ) : null}
        {turn.remembered ? <RememberedLine remembered={turn.remembered} /> : null}
        {turn.routing ? <AnswerFacts routing={turn.routing} usage={turn.usage} /> : null}
      </div>
    </li>
  );
}

/** Who answered and why (the gateway's `x-mnemo-*` headers), and what the answer cost. */
function AnswerFacts({ routing, usage }: { routing: Routing; usage: Usage | undefined }) {
  return (
    <dl className="answer-facts">
      {routing.model ? (
        <div>
          <dt>Model</dt>
          <dd className="mono">
            {routing.model}
            {routing.provider ? <span className="muted"> via {routing.provider}</span> : null}
          </dd>
        </div>
      ) : null}
      {routing.route ? (
        <div>
          <dt>Route</dt>
          <dd>{routing.route}</dd>
        </div>
      ) : null}
      {usage ? (
        <div>
          <dt>Tokens</dt>
          <dd>
            {formatInteger(usage.promptTokens)} prompt · {formatInteger(usage.completionTokens)}{' '}
            completion · {formatInteger(usage.totalTokens)} total
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

/** "Remembered: …": what the call recalled into the prompt, as the person's memories say it. */
function RememberedLine({ remembered }: { remembered: Remembered }) {
  const { ids, memories } = remembered;
  if (ids.length === 0) {
    return (
      <p className="remembered">
        <span className="remembered-label">Remembered:</span>{' '}
        <span className="muted">nothing that fits this message</span>
      </p>
    );
  }
  const count = `${formatInteger(ids.length)} ${ids.length === 1 ? 'memory' : 'memories'}`;
  if (!memories) {
    return (
      <p className="remembered">
        <span className="remembered-label">Remembered:</span>{' '}
        <span className="muted">
          {remembered.error ? `${count} (their texts could not be loaded)` : `${count}…`}
        </span>
      </p>
    );
  }
  return (
    <div className="remembered">
      <span className="remembered-label">Remembered:</span>
      <ul>
        {memories.map((memory) => (
          <li key={memory.id}>
            {memory.content ?? <span className="muted">A memory that is no longer listed</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
