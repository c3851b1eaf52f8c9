import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal dialog on the browser's own <dialog>: showModal() makes the rest of the page inert,
 * keeps focus inside, closes on Escape and gives focus back to what opened it. The first
 * field (or button) with `autoFocus`, else the first focusable element, takes focus.
 */
export function Dialog(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Escape and the backdrop do nothing while something must not be interrupted. */
  dismissible?: boolean;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  /** Set while the page itself closes the dialog, whose `close` event is then no news. */
  const closing = useRef(false);
  const titleId = useId();
  const { open, onClose, dismissible = true } = props;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) {
      closing.current = true;
      dialog.close();
    }
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const onCancel = (event: Event) => {
      event.preventDefault();
      if (dismissible) onClose();
    };
    // Chromium closes a modal dialog itself after repeated Escapes, whatever `cancel` says:
    // the page then learns it closed, rather than keep thinking it open.
    const onNativeClose = () => {
      if (closing.current) closing.current = false;
      else onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onNativeClose);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onNativeClose);
    };
  }, [onClose, dismissible]);

  return (
    <dialog ref={ref} aria-labelledby={titleId} className={`dialog ${props.className ?? ''}`}>
      {open ? (
        <>
          <h2 id={titleId} className="dialog-title">
            {props.title}
          </h2>
          {props.children}
        </>
      ) : null}
    </dialog>
  );
}
