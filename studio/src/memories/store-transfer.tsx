import { Download, Trash2, Upload } from 'lucide-react';
import { type ChangeEvent, useId, useState } from 'react';
import { data, inOrg } from '../api/client.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ConfirmActions } from '../ui/confirm-actions.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatDateTime, formatInteger } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { type FileMemory, type ReadFile, readImportFile } from './import-file.ts';
import { addFields, listQuery, type MemoryScope } from './memory-scope.ts';

/** What one import request takes (the API's limit). */
const BATCH = 1000;
/** Memories shown before an import is confirmed. */
const PREVIEW = 5;
/** Problems listed after an import; the rest are counted. */
const LISTED = 50;

const plural = (n: number, one: string, many: string) =>
  `${formatInteger(n)} ${n === 1 ? one : many}`;

/**
 * A store's memories in and out: Export (a download of the store's JSON lines), Import (a file,
 * a preview, then each memory's outcome) and Delete all (after a confirmation that names the store
 * and how many memories go). `store` names the store in words; `count` is how many it holds.
 */
export function StoreTransfer(props: {
  scope: MemoryScope;
  store: string;
  count: number;
  canImport: boolean;
  canDeleteAll: boolean;
  /** The store changed here: the list pulls what did. */
  onChanged: () => void;
}) {
  const { api, org } = useStudio();
  const [dialog, setDialog] = useState<'import' | 'delete'>();
  /** What the store held when Delete all was asked: the dialog names it while the list empties. */
  const [toDelete, setToDelete] = useState(0);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>();

  const exportStore = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      const blob = await data(
        api.GET('/api/v1/memory/export', {
          params: { query: listQuery(props.scope), header: inOrg(org.id) },
          parseAs: 'blob',
        }),
      );
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `mnemo-${slug(props.store)}-${new Date().toISOString().slice(0, 10)}.jsonl`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (error) {
      setExportError(error);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <div className="store-actions">
        <button
          type="button"
          className="button small"
          onClick={exportStore}
          disabled={exporting || props.count === 0}
        >
          <Download size={15} aria-hidden="true" /> {exporting ? 'Exporting…' : 'Export'}
        </button>
        {props.canImport ? (
          <button type="button" className="button small" onClick={() => setDialog('import')}>
            <Upload size={15} aria-hidden="true" /> Import
          </button>
        ) : null}
        {props.canDeleteAll && props.count > 0 ? (
          <button
            type="button"
            className="button small danger-text"
            onClick={() => {
              setToDelete(props.count);
              setDialog('delete');
            }}
          >
            <Trash2 size={15} aria-hidden="true" /> Delete all
          </button>
        ) : null}
      </div>
      <ErrorNotice error={exportError} />
      <Dialog
        open={dialog === 'import'}
        title={`Import memories into ${props.store}`}
        onClose={() => setDialog(undefined)}
        className="import-dialog"
      >
        <ImportMemories
          scope={props.scope}
          onClose={() => setDialog(undefined)}
          onImported={props.onChanged}
        />
      </Dialog>
      <Dialog
        open={dialog === 'delete'}
        title={`Delete all ${plural(toDelete, 'memory', 'memories')} of ${props.store}?`}
        onClose={() => setDialog(undefined)}
      >
        <DeleteAll
          scope={props.scope}
          count={toDelete}
          onClose={() => setDialog(undefined)}
          onDeleted={props.onChanged}
        />
      </Dialog>
    </>
  );
}

/** A file name's part for the store: "Ada’s store" → "ada-s-store". */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'store';

interface ImportOutcome {
  created: number;
  folded: number;
  invalid: { line: number; error: string }[];
}

function ImportMemories(props: {
  scope: MemoryScope;
  onClose: () => void;
  onImported: () => void;
}) {
  const { api, org } = useStudio();
  const fileId = useId();
  const [file, setFile] = useState<{ name: string; read: ReadFile }>();
  const [sent, setSent] = useState<number>();
  const [outcome, setOutcome] = useState<ImportOutcome>();
  const [error, setError] = useState<unknown>();

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setOutcome(undefined);
    setError(undefined);
    if (!chosen) return setFile(undefined);
    setFile({ name: chosen.name, read: readImportFile(await chosen.text()) });
  };

  const start = async () => {
    if (!file) return;
    const { memories, unreadable } = file.read;
    const done: ImportOutcome = {
      created: 0,
      folded: 0,
      invalid: unreadable.map((u) => ({ line: u.line, error: u.problem })),
    };
    setSent(0);
    try {
      // In the file's order, a request at a time: a later memory folds into an earlier one.
      for (let at = 0; at < memories.length; at += BATCH) {
        const batch: FileMemory[] = memories.slice(at, at + BATCH);
        const answer = await data(
          api.POST('/api/v1/memory/import', {
            params: { header: inOrg(org.id) },
            body: { ...addFields(props.scope), memories: batch.map((m) => m.item) },
          }),
        );
        answer.results.forEach((result, i) => {
          const line = batch[i]?.line ?? 0;
          if (result.status === 'created') done.created += 1;
          else if (result.status === 'folded') done.folded += 1;
          else done.invalid.push({ line, error: result.error ?? 'not imported' });
        });
        setSent(at + batch.length);
      }
      done.invalid.sort((a, b) => a.line - b.line);
      setOutcome(done);
    } catch (failure) {
      setError(failure);
      // What went before was imported: the list shows it, and a second try folds it.
      if (done.created + done.folded > 0) setOutcome(done);
    } finally {
      setSent(undefined);
      props.onImported();
    }
  };

  if (outcome) return <ImportResults outcome={outcome} error={error} onClose={props.onClose} />;
  const total = file?.read.memories.length ?? 0;
  const running = sent !== undefined;
  return (
    <>
      <p className="muted">
        A file of JSON lines, one memory a line (
        <code>{'{"content": "…", "category"?, "createdAt"?}'}</code>
        ), as <strong>Export</strong> or <code>mnemo export</code> writes them, or a JSON array of
        them. Each is saved as an add is: one that says what a memory here says already is folded
        into it, never doubled.
      </p>
      <div className="field">
        <label htmlFor={fileId}>File</label>
        <input
          id={fileId}
          type="file"
          accept=".jsonl,.ndjson,.json,application/json,application/x-ndjson"
          onChange={choose}
          disabled={running}
        />
      </div>
      {file ? <ImportPreview file={file.read} /> : null}
      <ErrorNotice error={error} />
      {running ? (
        <div className="import-progress" role="status">
          <progress max={total} value={sent} />
          <span>
            {formatInteger(sent)} of {plural(total, 'memory', 'memories')} sent
          </span>
        </div>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onClose} disabled={running}>
          Cancel
        </button>
        <button
          type="button"
          className="button primary"
          onClick={start}
          disabled={running || total === 0}
        >
          {running ? 'Importing…' : `Import ${plural(total, 'memory', 'memories')}`}
        </button>
      </div>
    </>
  );
}

function ImportPreview(props: { file: ReadFile }) {
  const { memories, unreadable } = props.file;
  return (
    <div className="import-preview">
      <p>
        <strong>{plural(memories.length, 'memory', 'memories')}</strong> to import
        {unreadable.length > 0 ? (
          <>
            ; {plural(unreadable.length, 'line', 'lines')} cannot be read (
            {unreadable
              .slice(0, 3)
              .map((u) => `line ${u.line}: ${u.problem}`)
              .join('; ')}
            {unreadable.length > 3 ? '; …' : ''})
          </>
        ) : null}
        .
      </p>
      {memories.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">The first memories of the file</caption>
            <thead>
              <tr>
                <th scope="col" className="number">
                  Line
                </th>
                <th scope="col">Memory</th>
                <th scope="col">Category</th>
                <th scope="col">Recorded</th>
              </tr>
            </thead>
            <tbody>
              {memories.slice(0, PREVIEW).map((m) => (
                <tr key={m.line}>
                  <td className="number">{m.line}</td>
                  <td>{shown(m.item.content)}</td>
                  <td>{shown(m.item.category) || '—'}</td>
                  <td className="import-when">{when(m.item.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {memories.length > PREVIEW ? (
        <p className="muted">… and {plural(memories.length - PREVIEW, 'more', 'more')}.</p>
      ) : null}
    </div>
  );
}

/** A memory's createdAt as the person reads dates; as written when it is no date (the server judges it). */
function when(value: unknown): string {
  if (value === undefined || value === null) return 'now';
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? shown(value) : formatDateTime(new Date(time).toISOString());
}

const shown = (value: unknown) =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

function ImportResults(props: { outcome: ImportOutcome; error: unknown; onClose: () => void }) {
  const { created, folded, invalid } = props.outcome;
  return (
    <>
      <ErrorNotice error={props.error} />
      <ul className="import-totals" aria-label="Import results">
        <li>
          <strong>{formatInteger(created)}</strong> created
        </li>
        <li>
          <strong>{formatInteger(folded)}</strong> already here, folded
        </li>
        <li className={invalid.length > 0 ? 'has-problems' : undefined}>
          <strong>{formatInteger(invalid.length)}</strong> not imported
        </li>
      </ul>
      {invalid.length > 0 ? (
        <ul className="import-problems" aria-label="Not imported">
          {invalid.slice(0, LISTED).map((p) => (
            <li key={p.line}>
              <span className="import-line">Line {p.line}</span> {p.error}
            </li>
          ))}
          {invalid.length > LISTED ? (
            <li className="muted">… and {formatInteger(invalid.length - LISTED)} more</li>
          ) : null}
        </ul>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </>
  );
}

function DeleteAll(props: {
  scope: MemoryScope;
  count: number;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const { api, org } = useStudio();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [deleted, setDeleted] = useState<number>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await data(
        api.DELETE('/api/v1/memory', {
          params: { query: listQuery(props.scope), header: inOrg(org.id) },
        }),
      );
      setDeleted(answer.deleted);
      props.onDeleted();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  if (deleted !== undefined) {
    return (
      <>
        <p role="status">Deleted {plural(deleted, 'memory', 'memories')}.</p>
        <div className="dialog-actions">
          <button type="button" className="button primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </>
    );
  }
  return (
    <>
      <p>
        Every memory of this store goes, in one step, and cannot be brought back. Apps syncing the
        store are told each one was deleted. Export it first to keep a copy.
      </p>
      <ErrorNotice error={error} />
      <ConfirmActions
        label={`Delete ${plural(props.count, 'memory', 'memories')}`}
        busyLabel="Deleting…"
        busy={busy}
        onConfirm={confirm}
        onCancel={props.onClose}
      />
    </>
  );
}
