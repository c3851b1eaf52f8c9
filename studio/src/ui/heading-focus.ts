import { useCallback, useEffect, useRef } from 'react';

/**
 * Focus for a page whose dialog removes the element that opened it (a revoked key's button, a
 * disconnected app's row): asked for, focus goes to the page's heading instead of nowhere, once
 * the dialog is closed — a modal dialog keeps the rest of the page inert until then, so focusing
 * earlier would land on nothing. The effect runs after the dialog's own.
 *
 * @example
 * const focusHeadingAfterClose = useHeadingFocusAfterClose(revoking !== undefined);
 * // in the dialog's onClose, when the row is gone:
 * focusHeadingAfterClose();
 */
export function useHeadingFocusAfterClose(dialogOpen: boolean): () => void {
  const pending = useRef(false);
  useEffect(() => {
    if (dialogOpen || !pending.current) return;
    pending.current = false;
    document.querySelector<HTMLElement>('#main h1')?.focus();
  }, [dialogOpen]);
  return useCallback(() => {
    pending.current = true;
  }, []);
}
