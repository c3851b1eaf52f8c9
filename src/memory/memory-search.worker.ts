/**
 * A SQLite search worker (memory-search.ts): the same search as on the event loop, on this
 * thread's read-only connection.
 */
import { serveReads } from '../db/sqlite/read-worker.ts';
import { searchOn } from './memory-search.ts';

serveReads(searchOn);
