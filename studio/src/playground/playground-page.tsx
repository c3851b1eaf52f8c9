import { useQuery } from '@tanstack/react-query';
import { MessageSquarePlus, Send, SlidersHorizontal, Square } from 'lucide-react';
import {
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from 'react';
import { ApiError } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { MEMORY_CHOICES, type MemoryMode } from '../keys/key-memory.ts';
import { Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { type ChatMessage, listModels, type ModelList, startChat } from './gateway-calls.ts';
import { gatewayFailure } from './gateway-failure.ts';
import { NoModels } from './no-models.tsx';
import { recalledMemories } from './recalled-memories.ts';
import { playgroundKey, type TemporaryKey } from './temporary-key.ts';
import { type Turn, TurnView } from './turn-view.tsx';
import './playground.css';

/**
 * The playground: a conversation with the gateway's models over `/v1`, as an app has one,
 * streamed, with who answered, why, and the tokens it took. It calls with a temporary key of
 * its own (temporary-key.ts), one for the tab, revoked when the person signs out.
 */
export function PlaygroundPage() {
  const { api, org, session, me } = useStudio();
  // The tab's key, the same on every visit: leaving the page keeps it for the next one.
  const key = useMemo(() => playgroundKey({ api, org, session, me }), [api, org, session, me]);

  const models = useQuery({
    queryKey: ['playground', org.id, 'models'],
    queryFn: () => withKey(key, listModels),
    refetchOnWindowFocus: false,
    staleTime: 60_000,
  });
  const empty = models.data !== undefined && models.data.models.length === 0;

  return (
    <Page
      title="Playground"
      subtitle={
        <>
          Talk to the models of mnemo’s gateway at <code>/v1</code>, as your apps do.
        </>
      }
    >
      {models.isPending ? <Loading what="models" /> : null}
      {models.error ? (
        <div className="notice error" role="alert">
          <span>{gatewayFailure(models.error)}</span>
          <button type="button" className="button small" onClick={() => void models.refetch()}>
            Try again
          </button>
        </div>
      ) : null}
      {empty ? <NoModels /> : null}
      {models.data && !empty ? <Chat list={models.data} temporaryKey={key} /> : null}
    </Page>
  );
}

/** When the settings go under the conversation: playground.css's breakpoint. */
const STACKED = '(max-width: 820px)';

/** Calls `/v1` with the temporary key; a key revoked meanwhile is replaced once. */
async function withKey<T>(key: TemporaryKey, call: (secret: string) => Promise<T>): Promise<T> {
  const secret = await key.secret();
  try {
    return await call(secret);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
    key.refused(secret);
    return call(await key.secret());
  }
}

/** The conversation so far as the API takes it: broken-off exchanges are left out. */
function history(system: string, turns: readonly Turn[]): ChatMessage[] {
  return [
    ...(system.trim() ? [{ role: 'system' as const, content: system.trim() }] : []),
    ...turns.flatMap((turn): ChatMessage[] => {
      if (turn.status !== 'done' && turn.status !== 'stopped') return [];
      return [
        { role: 'user', content: turn.message },
        ...(turn.answer ? [{ role: 'assistant' as const, content: turn.answer }] : []),
      ];
    }),
  ];
}

function Chat({ list, temporaryKey }: { list: ModelList; temporaryKey: TemporaryKey }) {
  const studio = useStudio();
  const ids = {
    model: useId(),
    modelHint: useId(),
    memory: useId(),
    memoryHint: useId(),
    system: useId(),
    message: useId(),
    settings: useId(),
  };
  const [model, setModel] = useState(list.router?.id ?? list.models[0]?.id ?? '');
  const [memory, setMemory] = useState<MemoryMode>('off');
  const [system, setSystem] = useState('');
  const [draft, setDraft] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [failure, setFailure] = useState<unknown>();
  const [announcement, setAnnouncement] = useState('');
  const running = useRef<AbortController | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const card = useRef<HTMLElement>(null);
  const settings = useRef<HTMLElement>(null);
  const modelChoice = useRef<HTMLSelectElement>(null);
  const conversation = useRef<HTMLElement>(null);
  const pinned = useRef(true);
  const messageBox = useRef<HTMLTextAreaElement>(null);

  const providers = [...new Set(list.models.map((m) => m.ownedBy))];
  const isRouter = model === list.router?.id;

  // Follow the answer as it grows, unless the person scrolled up to read.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs as the turns change.
  useEffect(() => {
    const element = conversation.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [turns]);

  // Leaving the page stops the answer.
  useEffect(() => () => running.current?.abort(), []);

  const update = (id: string, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn)));

  async function send(event?: FormEvent) {
    event?.preventDefault();
    const message = draft.trim();
    if (!message || running.current) return;
    const id = crypto.randomUUID();
    const messages = [...history(system, turns), { role: 'user' as const, content: message }];
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    setFailure(undefined);
    pinned.current = true;
    setTurns((all) => [...all, { id, message, asked: model, answer: '', status: 'waiting' }]);
    setAnnouncement('Waiting for the answer…');
    // On a phone the card is taller than what the page's header leaves of the screen: it comes
    // up whole, so that the answer and the message box are both in sight as the answer grows.
    if (window.matchMedia(STACKED).matches) card.current?.scrollIntoView({ block: 'start' });
    let begun = false;
    try {
      const { routing, recalled, events } = await withKey(temporaryKey, (secret) =>
        startChat({ secret, model, messages, memory, signal: controller.signal }),
      );
      begun = true;
      // The message is in the conversation now; the box is free for the next one.
      setDraft((current) => (current.trim() === message ? '' : current));
      update(id, () => ({
        status: 'streaming',
        routing,
        ...(recalled === undefined ? {} : { remembered: { ids: recalled } }),
      }));
      if (recalled && recalled.length > 0) {
        void recalledMemories(studio, recalled).then(
          (memories) => update(id, () => ({ remembered: { ids: recalled, memories } })),
          (error: unknown) => update(id, () => ({ remembered: { ids: recalled, error } })),
        );
      }
      for await (const event of events) {
        if (event.type === 'text') update(id, (turn) => ({ answer: turn.answer + event.text }));
        else update(id, () => ({ usage: event.usage }));
      }
      update(id, () => ({ status: 'done' }));
      setAnnouncement(`Answer from ${routing.model ?? model} complete.`);
    } catch (error) {
      if (controller.signal.aborted) {
        if (begun) {
          update(id, () => ({ status: 'stopped' }));
        } else {
          setTurns((all) => all.filter((turn) => turn.id !== id));
        }
        setAnnouncement('Stopped.');
      } else if (begun) {
        update(id, () => ({ status: 'failed', error }));
        setAnnouncement('');
      } else {
        // Nothing was answered: the exchange goes, the message stays in its box.
        setTurns((all) => all.filter((turn) => turn.id !== id));
        setFailure(error);
        setAnnouncement('');
      }
    } finally {
      running.current = undefined;
      setBusy(false);
    }
  }

  function onMessageKey(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  function showSettings() {
    settings.current?.scrollIntoView({ block: 'start' });
    modelChoice.current?.focus({ preventScroll: true });
  }

  function newChat() {
    running.current?.abort();
    setTurns([]);
    setFailure(undefined);
    setAnnouncement('New chat started.');
    messageBox.current?.focus();
  }

  return (
    <div className="playground">
      <section
        ref={card}
        className="card playground-chat"
        aria-labelledby={`${ids.message}-heading`}
      >
        <div className="chat-header">
          <h2 id={`${ids.message}-heading`}>Conversation</h2>
          <button
            type="button"
            className="button small"
            onClick={newChat}
            disabled={turns.length === 0 && !busy}
          >
            <MessageSquarePlus size={16} aria-hidden="true" />
            New chat
          </button>
        </div>
        <section
          ref={conversation}
          className="conversation"
          aria-label="Messages"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1).
          tabIndex={0}
          onScroll={(event) => {
            const el = event.currentTarget;
            pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
          }}
        >
          {turns.length === 0 ? (
            <p className="conversation-empty muted">
              Send a message to start. The answer streams in as the model writes it, with the model
              that answered, why, and the tokens it took.
            </p>
          ) : (
            <ol className="turns">
              {turns.map((turn) => (
                <TurnView key={turn.id} turn={turn} />
              ))}
            </ol>
          )}
        </section>
        <p role="status" className="visually-hidden">
          {announcement}
        </p>
        <form className="composer" onSubmit={(event) => void send(event)}>
          {failure ? (
            <div className="notice error" role="alert">
              <span>{gatewayFailure(failure)}</span>
            </div>
          ) : null}
          <label htmlFor={ids.message} className="visually-hidden">
            Message
          </label>
          <textarea
            id={ids.message}
            ref={messageBox}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={onMessageKey}
            rows={3}
            placeholder="Ask anything…"
            aria-describedby={`${ids.message}-hint`}
          />
          <div className="composer-actions">
            <span id={`${ids.message}-hint`} className="field-hint">
              Enter sends; Shift+Enter starts a new line.
            </span>
            {/* On a phone the settings come after the conversation: the way to them is here. */}
            <button
              type="button"
              className="button small ghost settings-jump"
              aria-controls={ids.settings}
              onClick={showSettings}
            >
              <SlidersHorizontal size={16} aria-hidden="true" />
              Settings
            </button>
            {busy ? (
              <button type="button" className="button" onClick={() => running.current?.abort()}>
                <Square size={14} aria-hidden="true" />
                Stop
              </button>
            ) : null}
            <button type="submit" className="button primary" aria-disabled={busy || undefined}>
              <Send size={16} aria-hidden="true" />
              Send
            </button>
          </div>
        </form>
      </section>

      <section
        ref={settings}
        id={ids.settings}
        className="card playground-settings"
        aria-label="Settings of the chat"
      >
        <div className="field">
          <label htmlFor={ids.model}>Model</label>
          <select
            ref={modelChoice}
            id={ids.model}
            value={model}
            onChange={(event) => setModel(event.target.value)}
            aria-describedby={ids.modelHint}
          >
            {list.router ? <option value={list.router.id}>{list.router.id} — router</option> : null}
            {providers.map((provider) => (
              <optgroup key={provider} label={provider}>
                {list.models
                  .filter((m) => m.ownedBy === provider)
                  .map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.id}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
          <span id={ids.modelHint} className="field-hint">
            {isRouter
              ? 'The router picks a model for each message; each answer says which, and why.'
              : 'This model answers every message, as asked by name.'}
          </span>
        </div>
        <div className="field">
          <label htmlFor={ids.memory}>Memory</label>
          <select
            id={ids.memory}
            value={memory}
            onChange={(event) => setMemory(event.target.value as MemoryMode)}
            aria-describedby={ids.memoryHint}
          >
            {MEMORY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
          <span id={ids.memoryHint} className="field-hint">
            {memory === 'off'
              ? 'Your memories stay out of the conversation.'
              : memory === 'read'
                ? 'Your memories go into the prompt; each answer lists the ones it was given.'
                : 'As Recall; new memories are also learned from the conversation.'}
          </span>
        </div>
        <div className="field">
          <label htmlFor={ids.system}>System prompt (optional)</label>
          <textarea
            id={ids.system}
            value={system}
            onChange={(event) => setSystem(event.target.value)}
            rows={4}
            placeholder="You are a concise assistant."
          />
        </div>
        <p className="field-hint playground-key-note">
          The playground calls <code>/v1</code> with a temporary API key of its own, kept for this
          tab. It expires within the hour and is revoked when you sign out.
        </p>
      </section>
    </div>
  );
}
