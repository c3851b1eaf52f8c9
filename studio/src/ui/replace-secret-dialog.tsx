import { useMutation } from '@tanstack/react-query';
import { type ReactNode, useCallback } from 'react';
import { ConfirmActions } from './confirm-actions.tsx';
import { Dialog } from './dialog.tsx';
import { ErrorNotice } from './notice.tsx';

/** What a replacement answers: the thing with its new state, and its new secret, shown once. */
export interface Replaced<T> {
  readonly secret: string;
  readonly item: T;
}

/**
 * Asks before a secret is replaced (what holds the old one stops working with it), then shows
 * the new secret once. While it is shown, only Done ends the dialog; the secret lives in the
 * mutation's state and goes with it. Apps' client secrets and webhooks' signing secrets use it.
 */
export function ReplaceSecretDialog<T>(props: {
  target: T | undefined;
  onClose: (replaced?: T) => void;
  replace: (target: T) => Promise<Replaced<T>>;
  /** The title while asking, and once the new secret is shown. */
  title: { ask: (target: T) => string; shown: (item: T) => string };
  /** What replacing does, said before it is done. */
  explain: (target: T) => ReactNode;
  /** The new secret, shown once, with a Done that calls `onDone`. */
  show: (shown: Replaced<T>, onDone: () => void) => ReactNode;
  /** The dialog's class while the secret is shown (it needs room for it). */
  wideClassName: string;
}) {
  const { target, onClose, title } = props;
  const replace = useMutation({ mutationFn: props.replace });
  const shown = replace.data;
  const { reset } = replace;
  const done = useCallback(() => {
    const item = shown?.item;
    reset();
    onClose(item);
  }, [shown, reset, onClose]);
  const cancel = () => {
    reset();
    onClose();
  };

  return (
    <Dialog
      open={target !== undefined}
      title={shown ? title.shown(shown.item) : target === undefined ? '' : title.ask(target)}
      onClose={shown ? done : cancel}
      dismissible={!shown && !replace.isPending}
      className={shown ? props.wideClassName : ''}
    >
      {shown ? (
        props.show(shown, done)
      ) : target !== undefined ? (
        <>
          <ErrorNotice error={replace.error} />
          {props.explain(target)}
          <ConfirmActions
            label="Replace secret"
            busyLabel="Replacing…"
            busy={replace.isPending}
            onConfirm={() => replace.mutate(target)}
            onCancel={cancel}
          />
        </>
      ) : null}
    </Dialog>
  );
}
