import type { IncomingHttpHeaders } from 'node:http';
import type { KeyHolder } from '../../keys/index.ts';
import { covers, isMemoryMode, MEMORY_MODES, type MemoryMode } from '../../keys/index.ts';
import { GatewayError, invalidRequest } from '../openai-errors.ts';

export const MEMORY_HEADER = 'x-mnemo-memory';
export const PROJECT_HEADER = 'x-mnemo-project';
/**
 * Whose memories the call uses instead of the key owner's: an end user's external id or mnemo
 * id, or a member's id, with the rights and audit of the memory API's `user`.
 */
export const USER_HEADER = 'x-mnemo-user';
/** The answer's list of the memories a call recalled: their ids, comma-separated. */
export const RECALLED_HEADER = 'x-mnemo-memories';

/** What one call does with memory, when it does anything. */
export interface MemoryUse {
  /** `read`: recall into the prompt; `read-write`: recall, then learn from the conversation. */
  readonly mode: Exclude<MemoryMode, 'off'>;
  /** The project pool added to the owner's own memories (`x-mnemo-project`). */
  readonly project: string | undefined;
  /** Whose memories, when not the key owner's (`x-mnemo-user`): as sent, resolved by the store. */
  readonly user: string | undefined;
}

/**
 * A call's memory: its `x-mnemo-memory` header, else its key's `memory` setting; never beyond
 * the key's `memoryAccess`. Undefined when off: the call then goes out exactly as it came, and
 * `x-mnemo-project` is not read.
 */
export function memoryUseOf(
  headers: IncomingHttpHeaders,
  holder: KeyHolder,
): MemoryUse | undefined | GatewayError {
  const header = headers[MEMORY_HEADER];
  const asked = typeof header === 'string' ? header.trim().toLowerCase() : header;
  let mode: MemoryMode;
  if (asked === undefined) mode = holder.memory.mode;
  else if (isMemoryMode(asked)) mode = asked;
  else {
    return invalidRequest(
      `The ${MEMORY_HEADER} header must be one of ${MEMORY_MODES.join(', ')}.`,
      'invalid_memory_mode',
      MEMORY_HEADER,
    );
  }
  if (mode === 'off') return undefined;
  if (!covers(holder.memory.access, mode)) {
    const may = holder.memory.access === 'off' ? 'no memory' : 'memory read only';
    return new GatewayError(403, {
      message: `This API key may use ${may} (its memoryAccess is ${holder.memory.access}); ${MEMORY_HEADER}: ${mode} is refused. Change the key's memoryAccess in the studio or with PATCH /api/v1/api-keys/{id}.`,
      type: 'invalid_request_error',
      param: MEMORY_HEADER,
      code: 'memory_not_allowed',
    });
  }
  const project = headers[PROJECT_HEADER];
  if (project !== undefined && (typeof project !== 'string' || project.trim() === '')) {
    return invalidRequest(
      `The ${PROJECT_HEADER} header must be one project id.`,
      'invalid_project',
      PROJECT_HEADER,
    );
  }
  const user = headers[USER_HEADER];
  if (user !== undefined && (typeof user !== 'string' || user.trim() === '')) {
    return invalidRequest(
      `The ${USER_HEADER} header must be one end user's id (theirs in your app, or mnemo's) or one member's id.`,
      'invalid_user',
      USER_HEADER,
    );
  }
  // As the memory API: a store is a user's or a project's, never both.
  if (user !== undefined && project !== undefined) {
    return invalidRequest(
      `The ${USER_HEADER} header cannot be combined with ${PROJECT_HEADER}.`,
      'user_with_project',
      USER_HEADER,
    );
  }
  return { mode, project: project?.trim(), user: user?.trim() };
}
