import { type GatewayError, invalidRequest } from '../openai-errors.ts';
import type { Sealer } from '../sealing.ts';
import type { InputItem, MessageItem, ResponsesRequest } from './responses.schemas.ts';

/**
 * What the model is asked, after the conversation, to compact it: the summary replaces every
 * turn but the user's own messages, so it must carry whatever the rest of the conversation
 * needs from them.
 */
export const COMPACTION_PROMPT = [
  'The conversation above is being compacted so that it can go on in a smaller context window.',
  'Write a summary of it that lets a model carry on as if it had read it all:',
  "the user's goals, constraints and preferences; what has been decided, done and found so far,",
  'with the results of tool calls that still matter; the names, figures, paths and identifiers',
  'needed later; and what is still open or was about to happen next.',
  'Write only the summary, as plain text, without preamble, and do not continue the conversation.',
].join(' ');

/** The text a compaction item becomes when a later request carries it back. */
export const summaryMessage = (summary: string) =>
  `Summary of the earlier part of this conversation, which was compacted:\n\n${summary}`;

/** What a compaction item's `encrypted_content` holds, sealed (sealing.ts). */
export interface SealedCompaction {
  readonly summary: string;
  /** The catalog id of the model that wrote it. */
  readonly model: string;
}

const isSealedCompaction = (value: unknown): value is SealedCompaction =>
  typeof value === 'object' &&
  value !== null &&
  'summary' in value &&
  typeof value.summary === 'string';

/** OpenAI's answer for a `previous_response_id` it does not have: every one, here. */
export const previousResponseNotFound = (id: string) =>
  invalidRequest(
    `Previous response with id '${id}' not found.`,
    'previous_response_not_found',
    'previous_response_id',
  );

/**
 * The request with each compaction item of its `input` opened and replaced by the summary it
 * seals, as a developer message where the item stood (system and developer messages become the
 * system prompt of providers that have one, wherever they stand). A compaction item this server
 * did not seal, or that was changed, is OpenAI's 400 `invalid_encrypted_content`.
 *
 * @example
 * const expanded = await expandCompactions(body, sealer);
 * if (expanded instanceof GatewayError) throw expanded;
 * toChatRequest(expanded);
 */
export async function expandCompactions<T extends { input?: ResponsesRequest['input'] }>(
  body: T,
  sealer: Sealer,
): Promise<T | GatewayError> {
  const { input } = body;
  if (input === undefined || typeof input === 'string') return body;
  if (!input.some((item) => item.type === 'compaction')) return body;
  const expanded: InputItem[] = [];
  for (const [index, item] of input.entries()) {
    if (item.type !== 'compaction') {
      expanded.push(item);
      continue;
    }
    const param = `input[${index}].encrypted_content`;
    if (!('encrypted_content' in item) || typeof item.encrypted_content !== 'string') {
      return invalidRequest(
        `Missing required parameter: '${param}'.`,
        'missing_required_parameter',
        param,
      );
    }
    const opened = await sealer.open('compaction', item.encrypted_content);
    if (!isSealedCompaction(opened)) {
      const id = 'id' in item && typeof item.id === 'string' ? item.id : `input[${index}]`;
      return invalidRequest(
        `The encrypted content for item ${id} could not be verified.`,
        'invalid_encrypted_content',
        param,
      );
    }
    const message: MessageItem = {
      type: 'message',
      role: 'developer',
      content: summaryMessage(opened.summary),
    };
    expanded.push(message);
  }
  return { ...body, input: expanded };
}
