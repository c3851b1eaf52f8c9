import { undoDelete, usePendingDeletes } from './pending-deletes.ts';

const excerpt = (text: string) => (text.length > 48 ? `${text.slice(0, 47)}…` : text);

/** "Memory deleted — Undo", one per deletion still waiting; announced politely. */
export function UndoToasts() {
  const pending = usePendingDeletes().filter((p) => p.state === 'waiting');
  return (
    <div className="toasts" role="status" aria-live="polite">
      {pending.map((p) => (
        <div className="toast" key={p.id}>
          <span>Deleted “{excerpt(p.content)}”</span>
          <button type="button" className="button small" onClick={() => undoDelete(p.id)}>
            Undo
          </button>
        </div>
      ))}
    </div>
  );
}
