import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { inOrg } from '../api/client.ts';
import { errorFromBody } from '../api/errors.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { CategorySelect } from './category-select.tsx';
import { addFields, type MemoryScope } from './memory-scope.ts';
import type { MemoryItem } from './sync-mirror.ts';

/** What an add came to: a new memory, or a save folded into one that says the same. */
export type Added =
  | { kind: 'created'; memory: MemoryItem }
  | { kind: 'folded'; id: string | undefined; content: string };

/**
 * The add form. The text stays until the API has the memory: a failure (offline included)
 * leaves it for another try. The category stays chosen for the next memory.
 */
export function AddMemory(props: { scope: MemoryScope; onAdded: (added: Added) => void }) {
  const { api, org } = useStudio();
  const [content, setContent] = useState('');
  const [category, setCategory] = useState('');
  const textId = useId();
  const categoryId = useId();
  const text = useRef<HTMLTextAreaElement>(null);

  const add = useMutation({
    mutationFn: async (): Promise<Added> => {
      const {
        data: body,
        error,
        response,
      } = await api.POST('/api/v1/memory', {
        params: { header: inOrg(org.id) },
        body: { content, ...(category ? { category } : {}), ...addFields(props.scope) },
      });
      if (!response.ok || !body) throw errorFromBody(response, error);
      if (response.status === 201 && 'memory' in body && 'createdAt' in body.memory) {
        return { kind: 'created', memory: body.memory as MemoryItem };
      }
      const folded = 'memory' in body ? body.memory : undefined;
      return { kind: 'folded', id: folded?.id, content: folded?.content ?? content };
    },
    onSuccess: (added) => {
      setContent('');
      props.onAdded(added);
      text.current?.focus();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (content.trim() === '' || add.isPending) return;
    add.mutate();
  };

  return (
    <form className="card add-memory" onSubmit={submit} aria-label="Add a memory">
      <div className="field">
        <label htmlFor={textId}>New memory</label>
        <textarea
          id={textId}
          ref={text}
          value={content}
          rows={2}
          maxLength={8000}
          placeholder="Prefers tea over coffee"
          onChange={(event) => setContent(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) submit(event);
          }}
        />
      </div>
      <div className="add-memory-row">
        <div className="field inline">
          <label htmlFor={categoryId}>Category</label>
          <CategorySelect id={categoryId} value={category} onChange={setCategory} />
        </div>
        <button
          type="submit"
          className="button primary"
          disabled={add.isPending || content.trim() === ''}
        >
          Add
        </button>
      </div>
      <ErrorNotice error={add.error} />
    </form>
  );
}
