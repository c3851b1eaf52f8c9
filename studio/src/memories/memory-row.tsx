import { useMutation } from '@tanstack/react-query';
import { Check, Pencil, Trash2, X } from 'lucide-react';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { data, inOrg } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { formatDateTime, formatRelative } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { categoryLabel } from './categories.ts';
import { CategorySelect } from './category-select.tsx';
import { itemQuery, type MemoryScope } from './memory-scope.ts';
import type { MemoryItem } from './sync-mirror.ts';

/**
 * One memory: its text as plain visible text (never markup), its category and when it last
 * changed; Edit turns it into a form in place, Delete hands it to the undo queue.
 */
export function MemoryRow(props: {
  item: MemoryItem;
  scope: MemoryScope;
  highlighted: boolean;
  onSaved: (item: MemoryItem) => void;
  onDelete: (item: MemoryItem) => void;
}) {
  const { item } = props;
  const [editing, setEditing] = useState(false);
  const row = useRef<HTMLLIElement>(null);

  useEffect(() => {
    if (props.highlighted) {
      row.current?.scrollIntoView({ block: 'center' });
      row.current?.focus();
    }
  }, [props.highlighted]);

  return (
    <li
      ref={row}
      className={`memory${props.highlighted ? ' highlighted' : ''}`}
      tabIndex={props.highlighted ? -1 : undefined}
    >
      {editing ? (
        <EditMemory
          item={item}
          scope={props.scope}
          onDone={(saved) => {
            if (saved) props.onSaved(saved);
            setEditing(false);
          }}
        />
      ) : (
        <>
          <p className="memory-content">{item.content}</p>
          <div className="memory-meta">
            <span className={`category-badge cat-${item.category ?? 'none'}`}>
              {categoryLabel(item.category)}
            </span>
            <time dateTime={item.updatedAt} title={formatDateTime(item.updatedAt)}>
              {item.updatedAt === item.createdAt ? 'Added' : 'Changed'}{' '}
              {formatRelative(item.updatedAt)}
            </time>
            <span className="memory-actions">
              <button type="button" className="button ghost small" onClick={() => setEditing(true)}>
                <Pencil size={14} aria-hidden="true" />
                Edit
              </button>
              <button
                type="button"
                className="button ghost small danger-text"
                onClick={() => props.onDelete(item)}
              >
                <Trash2 size={14} aria-hidden="true" />
                Delete
              </button>
            </span>
          </div>
        </>
      )}
    </li>
  );
}

function EditMemory(props: {
  item: MemoryItem;
  scope: MemoryScope;
  onDone: (saved: MemoryItem | undefined) => void;
}) {
  const { api, org } = useStudio();
  const { item, onDone } = props;
  const [content, setContent] = useState(item.content);
  const [category, setCategory] = useState(item.category ?? '');
  const textId = useId();
  const categoryId = useId();
  const text = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const field = text.current;
    field?.focus();
    field?.setSelectionRange(field.value.length, field.value.length);
  }, []);

  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/api/v1/memory/{id}', {
          params: { path: { id: item.id }, query: itemQuery(props.scope), header: inOrg(org.id) },
          body: {
            ...(content !== item.content ? { content } : {}),
            // `null` takes the category away (design: null or an unknown value removes it).
            ...(category !== (item.category ?? '') ? { category: category || null } : {}),
          },
        }),
      ),
    onSuccess: (answer) => onDone(answer.memory),
  });

  const unchanged = content === item.content && category === (item.category ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (unchanged) return onDone(undefined);
    if (content.trim() === '' || save.isPending) return;
    save.mutate();
  };

  return (
    <form
      className="memory-edit"
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onDone(undefined);
        }
      }}
    >
      <label htmlFor={textId} className="visually-hidden">
        Memory text
      </label>
      <textarea
        id={textId}
        ref={text}
        value={content}
        rows={Math.min(8, Math.max(2, Math.ceil(content.length / 80)))}
        maxLength={8000}
        onChange={(event) => setContent(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) submit(event);
        }}
      />
      <div className="memory-edit-row">
        <label htmlFor={categoryId}>Category</label>
        <CategorySelect id={categoryId} value={category} onChange={setCategory} />
        <span className="memory-edit-actions">
          <button
            type="submit"
            className="button primary small"
            disabled={save.isPending || content.trim() === ''}
          >
            <Check size={14} aria-hidden="true" />
            Save
          </button>
          <button type="button" className="button small" onClick={() => onDone(undefined)}>
            <X size={14} aria-hidden="true" />
            Cancel
          </button>
        </span>
      </div>
      <ErrorNotice error={save.error} explain={(error) => explainPoolChange(props.scope, error)} />
    </form>
  );
}

/** In a pool, a change by id reaches only what the person contributed (spec): a 404 says so. */
export function explainPoolChange(scope: MemoryScope, error: unknown): string | undefined {
  return scope.kind === 'project' && error instanceof ApiError && error.status === 404
    ? 'Only the person who added a memory to this pool can change or delete it.'
    : undefined;
}
