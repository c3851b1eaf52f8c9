import { v7 } from 'uuid';

/**
 * An id for a row of a table that grows with use (memories, the audit log): a UUID whose first
 * 48 bits are the time, so new rows go to the end of the primary-key index instead of a random
 * page of it, and a commit writes a few pages instead of one per row.
 */
export const newRowId = (): string => v7();
