import { Download, Trash2, Upload } from 'lucide-react';
import { useState } from 'react';
import { useStudio } from '../app/studio-context.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { formatCount, formatInteger } from '../ui/format.ts';
import { useHeadingFocusAfterClose } from '../ui/heading-focus.ts';
import { ErrorNotice } from '../ui/notice.tsx';
import { DeleteAllDialog } from './delete-all-dialog.tsx';
import type { ImportOutcome } from './import-batches.ts';
import { ImportMemories } from './import-memories.tsx';
import type { MemoryScope } from './memory-scope.ts';
import { downloadStore } from './store-export.ts';

/** The store as the page names it: in a sentence, and in a file name. */
export interface StoreName {
  /** "your store", "Grace Hopper’s store", "the pool of “Atlas”". */
  readonly sentence: string;
  /** "Ada Lovelace", "Grace Hopper", "customer-42", "Atlas". */
  readonly label: string;
}

/** What the page says after an import, in one line; the counts that are not zero. */
function imported(outcome: ImportOutcome, fileName: string, store: string): string {
  const parts = [
    [outcome.created, 'created'],
    [outcome.folded, 'folded into memories already here'],
    [outcome.invalid.length, 'not imported'],
    [outcome.unsent, 'not sent'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${formatInteger(n)} ${what}`);
  return `Imported ${fileName} into ${store}: ${said.length > 0 ? said.join(', ') : 'nothing'}.`;
}

/**
 * A store's own actions, above its list: Export (a download of the store's JSON lines), Import
 * (a file, a preview, then each memory's outcome) and Delete all (after a confirmation that names
 * the store and how many memories go). What each did stays said in a status line beneath.
 */
export function StoreTransfer(props: {
  scope: MemoryScope;
  store: StoreName;
  /** How many memories the list holds. */
  count: number;
  canImport: boolean;
  canDeleteAll: boolean;
  /** Memories came in: the list pulls what changed. */
  onImported: () => void;
  /** The server deleted the whole store: the list shows it empty, then pulls. */
  onDeletedAll: () => void;
}) {
  const { api, org } = useStudio();
  const [dialog, setDialog] = useState<'import' | 'delete'>();
  const [importing, setImporting] = useState(false);
  /** What the store held when Delete all was asked: the dialog names it while it is open. */
  const [toDelete, setToDelete] = useState(0);
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  // Delete all goes with the store's last memory: focus then goes to the page's heading.
  const focusHeadingAfterClose = useHeadingFocusAfterClose(dialog !== undefined);
  const { sentence, label } = props.store;

  const exportStore = async () => {
    setExporting(true);
    setError(undefined);
    setStatus('');
    try {
      const { name, count } = await downloadStore(api, org.id, props.scope, label);
      setStatus(`Downloaded ${name}: ${formatCount(count, 'memory', 'memories')}.`);
    } catch (failure) {
      setError(failure);
    } finally {
      setExporting(false);
    }
  };

  const open = (which: 'import' | 'delete') => {
    setError(undefined);
    setStatus('');
    if (which === 'delete') setToDelete(props.count);
    setDialog(which);
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
          <button type="button" className="button small" onClick={() => open('import')}>
            <Upload size={15} aria-hidden="true" /> Import
          </button>
        ) : null}
        {props.canDeleteAll && props.count > 0 ? (
          <button type="button" className="button small danger-text" onClick={() => open('delete')}>
            <Trash2 size={15} aria-hidden="true" /> Delete all
          </button>
        ) : null}
      </div>
      <ErrorNotice error={error} />
      <div role="status" className="status-line">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      <Dialog
        open={dialog === 'import'}
        title={`Import memories into ${sentence}`}
        onClose={() => setDialog(undefined)}
        dismissible={!importing}
        className="import-dialog"
      >
        <ImportMemories
          scope={props.scope}
          onRunning={setImporting}
          onClose={() => setDialog(undefined)}
          onImported={(outcome, fileName) => {
            setStatus(imported(outcome, fileName, sentence));
            props.onImported();
          }}
        />
      </Dialog>
      <DeleteAllDialog
        open={dialog === 'delete'}
        scope={props.scope}
        store={sentence}
        count={toDelete}
        onClose={() => setDialog(undefined)}
        onDeleted={(deleted) => {
          props.onDeletedAll();
          setStatus(`Deleted ${formatCount(deleted, 'memory', 'memories')} of ${sentence}.`);
          setDialog(undefined);
          focusHeadingAfterClose();
        }}
      />
    </>
  );
}
