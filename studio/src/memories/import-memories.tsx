import { TriangleAlert } from 'lucide-react';
import { type ChangeEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { createAuthorizedFetch } from '../api/client.ts';
import { useStudio } from '../app/studio-context.tsx';
import { CodeBlock } from '../ui/code-block.tsx';
import { formatCount, formatDateTime, formatInteger } from '../ui/format.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import {
  BATCH,
  type ImportOutcome,
  type ImportProgress,
  importInBatches,
} from './import-batches.ts';
import { type ReadFile, readImportFile } from './import-file.ts';
import type { MemoryScope } from './memory-scope.ts';

/** Memories shown before an import is confirmed. */
const PREVIEW = 5;
/** Lines listed by number (unreadable, or not imported); the rest are counted. */
const LISTED = 50;

/**
 * The Import dialog's content: a file chosen and read here, a preview of its first memories and
 * of the lines it cannot read; on confirmation, its memories sent in batches with a progress bar
 * (and the server's pauses, counted down); then each memory's outcome.
 */
export function ImportMemories(props: {
  scope: MemoryScope;
  /** The import runs (or stops): the dialog must not be dismissed meanwhile. */
  onRunning: (running: boolean) => void;
  onClose: () => void;
  /** The import is over, whole or not: the store changed. */
  onImported: (outcome: ImportOutcome, fileName: string) => void;
}) {
  const { api, org, session } = useStudio();
  // The import shows the server's pauses itself, rather than the client waiting them out unseen.
  const fetchShowingPauses = useMemo(
    () => createAuthorizedFetch(session, { waitOutRateLimits: false }),
    [session],
  );
  const fileId = useId();
  const [file, setFile] = useState<{ name: string; read: ReadFile }>();
  const [progress, setProgress] = useState<ImportProgress>();
  const [outcome, setOutcome] = useState<ImportOutcome>();
  const [stopping, setStopping] = useState(false);
  const stop = useRef<AbortController>(undefined);

  // Leaving the page stops the import before its next request.
  useEffect(() => () => stop.current?.abort(), []);

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setFile(chosen ? { name: chosen.name, read: readImportFile(await chosen.text()) } : undefined);
  };

  const start = async () => {
    if (!file) return;
    const controller = new AbortController();
    stop.current = controller;
    setStopping(false);
    setProgress({ sent: 0 });
    props.onRunning(true);
    const done = await importInBatches({
      api,
      fetch: fetchShowingPauses,
      orgId: org.id,
      scope: props.scope,
      file: file.read,
      signal: controller.signal,
      onProgress: setProgress,
    });
    props.onRunning(false);
    setProgress(undefined);
    setOutcome(done);
    props.onImported(done, file.name);
  };

  if (outcome) return <ImportResults outcome={outcome} onClose={props.onClose} />;
  const total = file?.read.memories.length ?? 0;
  return (
    <>
      <p className="muted">
        JSON Lines, one memory a line, as <strong>Export</strong> and <code>mnemo export</code>{' '}
        write them, or a JSON array of the same. Only <code>content</code> is needed;{' '}
        <code>category</code> and <code>createdAt</code> are kept when given. A memory that says
        what one here already says is folded into it, never doubled.
      </p>
      {/* Once a file gives memories, its preview shows the shape instead. */}
      {file && file.read.memories.length > 0 ? null : (
        <CodeBlock className="import-example">
          {
            '{"content": "Likes tea", "category": "preference", "createdAt": "2024-07-20T10:00:00Z"}'
          }
        </CodeBlock>
      )}
      <div className="field">
        <label htmlFor={fileId}>File</label>
        <input
          id={fileId}
          type="file"
          accept=".jsonl,.ndjson,.json,application/json,application/x-ndjson"
          onChange={choose}
          disabled={progress !== undefined}
        />
      </div>
      {file ? <ImportPreview file={file.read} /> : null}
      {progress ? <Progress progress={progress} total={total} stopping={stopping} /> : null}
      <div className="dialog-actions">
        {progress ? (
          <button
            type="button"
            className="button"
            disabled={stopping}
            onClick={() => {
              setStopping(true);
              stop.current?.abort();
            }}
          >
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button type="button" className="button" onClick={props.onClose}>
            Cancel
          </button>
        )}
        <button
          type="button"
          className="button primary"
          onClick={start}
          disabled={progress !== undefined || total === 0}
        >
          {progress ? 'Importing…' : `Import ${formatCount(total, 'memory', 'memories')}`}
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
        {memories.length > 0 ? (
          <>
            <strong>{formatCount(memories.length, 'memory', 'memories')}</strong> to import
            {memories.length > PREVIEW ? `; the first ${PREVIEW}:` : ':'}
          </>
        ) : (
          'This file holds no memory to import.'
        )}
      </p>
      {memories.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a keyboard can scroll it when it is wider than the screen (WCAG 2.1.1).
        <section className="table-wrap" aria-label="The first memories of the file" tabIndex={0}>
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
        </section>
      ) : null}
      {memories.length > PREVIEW ? (
        <p className="muted import-more">
          … and {formatInteger(memories.length - PREVIEW)} more
          {memories.length > BATCH
            ? `, sent ${formatInteger(BATCH)} at a time (${formatInteger(Math.ceil(memories.length / BATCH))} requests)`
            : ''}
          .
        </p>
      ) : null}
      {unreadable.length > 0 ? (
        <div className="import-unreadable">
          <p>
            <TriangleAlert size={16} aria-hidden="true" />
            {unreadable.length === 1
              ? '1 line cannot be read and is left out:'
              : `${formatInteger(unreadable.length)} lines cannot be read and are left out:`}
          </p>
          <LineList
            label="Lines that cannot be read"
            lines={unreadable.map((u) => ({ line: u.line, error: u.problem }))}
          />
        </div>
      ) : null}
    </div>
  );
}

/** Lines of the file by number, each with why; the first LISTED, then how many more. */
function LineList(props: { label: string; lines: readonly { line: number; error: string }[] }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a keyboard can scroll it when the lines are more than it shows (WCAG 2.1.1).
    <ul className="import-lines" aria-label={props.label} tabIndex={0}>
      {props.lines.slice(0, LISTED).map((p) => (
        <li key={p.line}>
          <span className="import-line">Line {formatInteger(p.line)}</span> <span>{p.error}</span>
        </li>
      ))}
      {props.lines.length > LISTED ? (
        <li className="muted">… and {formatInteger(props.lines.length - LISTED)} more</li>
      ) : null}
    </ul>
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

/** Seconds left until `at`, ticking while there are some. */
function useSecondsUntil(at: number | undefined): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (at === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? 0 : Math.max(0, Math.ceil((at - now) / 1000));
}

function Progress(props: { progress: ImportProgress; total: number; stopping: boolean }) {
  const { sent, resumesAt } = props.progress;
  const seconds = useSecondsUntil(resumesAt);
  const waiting = resumesAt !== undefined;
  const next = Math.min(BATCH, props.total - sent);
  return (
    <div className="import-progress">
      <progress aria-label="Import progress" max={props.total} value={sent} />
      {/* Announced when it changes: a batch done, a pause begun. The countdown is not. */}
      <p role="status">
        {formatInteger(sent)} of {formatCount(props.total, 'memory', 'memories')} sent
        {props.stopping
          ? '; stopping after this request.'
          : waiting
            ? '. The server takes only so many imported memories a minute: the import waits, then goes on by itself.'
            : '.'}
      </p>
      {waiting && !props.stopping ? (
        <p className="import-wait">
          Sending {next === 1 ? 'the next memory' : `the next ${formatInteger(next)}`} again in{' '}
          {seconds} s.
        </p>
      ) : null}
    </div>
  );
}

function ImportResults(props: { outcome: ImportOutcome; onClose: () => void }) {
  const { created, folded, invalid, unsent, unsentFrom, stopped, error } = props.outcome;
  return (
    <>
      <ErrorNotice error={error} />
      {unsent > 0 ? (
        <p className="notice warning">
          {stopped ? 'Stopped: ' : 'The import ended early: '}
          {formatCount(unsent, 'memory', 'memories')}
          {unsentFrom === undefined ? '' : `, from line ${formatInteger(unsentFrom)},`}{' '}
          {unsent === 1 ? 'was' : 'were'} not sent. Import the same file again to send them: what
          was sent already folds, and nothing is doubled.
        </p>
      ) : null}
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
      {invalid.length > 0 ? <LineList label="Not imported" lines={invalid} /> : null}
      <div className="dialog-actions">
        <button
          type="button"
          className="button primary"
          onClick={props.onClose}
          // biome-ignore lint/a11y/noAutofocus: the button that started the import is gone; focus comes here.
          autoFocus
        >
          Done
        </button>
      </div>
    </>
  );
}
