import { useSyncExternalStore } from 'react';

/** How long a deleted memory can be brought back before the DELETE is sent. */
export const UNDO_MS = 6000;

export interface PendingDelete {
  readonly id: string;
  readonly content: string;
  /** `waiting` can still be undone; `sending` is on its way to the server. */
  readonly state: 'waiting' | 'sending';
}

interface Entry extends PendingDelete {
  readonly timer: ReturnType<typeof setTimeout> | undefined;
  /** Sends the DELETE; `keepalive` when the page is going away. */
  readonly send: (keepalive: boolean) => Promise<void>;
}

/**
 * Deletions waiting out their undo. They live beside the page, not in it: leaving the page
 * does not cancel one, and closing the tab sends what is waiting (a keepalive request outlives
 * the page), so a memory the person deleted does not come back because they moved on. An entry
 * stays until its DELETE is answered, so the memory does not flash back in between.
 */
const pending = new Map<string, Entry>();
const listeners = new Set<() => void>();
let snapshot: readonly PendingDelete[] = [];

function changed() {
  snapshot = [...pending.values()].map(({ id, content, state }) => ({ id, content, state }));
  for (const listener of listeners) listener();
}

export function scheduleDelete(item: {
  id: string;
  content: string;
  send: (keepalive: boolean) => Promise<void>;
  onFailed: (error: unknown) => void;
}): void {
  const timer = setTimeout(() => {
    const entry = pending.get(item.id);
    if (!entry) return;
    pending.set(item.id, { ...entry, state: 'sending', timer: undefined });
    changed();
    item
      .send(false)
      .catch(item.onFailed)
      .finally(() => {
        pending.delete(item.id);
        changed();
      });
  }, UNDO_MS);
  pending.set(item.id, { ...item, state: 'waiting', timer });
  changed();
}

/** Brings the memory back: its DELETE is never sent. */
export function undoDelete(id: string): void {
  const entry = pending.get(id);
  if (entry?.state !== 'waiting') return;
  clearTimeout(entry.timer);
  pending.delete(id);
  changed();
}

window.addEventListener('pagehide', () => {
  for (const entry of pending.values()) {
    if (entry.state !== 'waiting') continue;
    clearTimeout(entry.timer);
    void entry.send(true).catch(() => {});
  }
});

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The deletions under way, for the list to hide them and the toasts to offer Undo. */
export function usePendingDeletes(): readonly PendingDelete[] {
  return useSyncExternalStore(subscribe, () => snapshot);
}
