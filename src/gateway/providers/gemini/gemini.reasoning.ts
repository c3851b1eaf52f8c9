import type { ReasoningDetail } from '../../chat.schemas.ts';
import type { GeminiPart } from './gemini.types.ts';

/** The provider kind that writes these pieces, and the only one they go back to. */
export const GEMINI_FORMAT = 'gemini';

/** Where a choice's reasoning stands: the next piece's index, and the text piece still open. */
export interface ReasoningCursor {
  next: number;
  open: number | undefined;
}

export const newReasoningCursor = (): ReasoningCursor => ({ next: 0, open: undefined });

/**
 * The reasoning one part carries, as `reasoning_details` pieces, in the part's order:
 * - a thought part's text (`thought: true`) continues the open `reasoning.text` piece, so
 *   thoughts streamed over many parts make one piece, as the whole answer's one part does;
 * - a `thoughtSignature` is a `reasoning.encrypted` piece whose `id` is the tool call id of
 *   its functionCall part (`callId`), or null on any other part; it closes the text piece.
 *
 * @example
 * const cursor = newReasoningCursor();
 * reasoningOfPart({ text: 'Paris first.', thought: true }, undefined, cursor);
 * // [{ type: 'reasoning.text', text: 'Paris first.', format: 'gemini', index: 0 }]
 */
export function reasoningOfPart(
  part: GeminiPart,
  callId: string | undefined,
  cursor: ReasoningCursor,
): ReasoningDetail[] {
  const pieces: ReasoningDetail[] = [];
  if (part.thought === true) {
    if ('text' in part && part.text !== '') {
      cursor.open ??= cursor.next++;
      pieces.push({
        type: 'reasoning.text',
        text: part.text,
        format: GEMINI_FORMAT,
        index: cursor.open,
      });
    }
  } else {
    cursor.open = undefined;
  }
  if (part.thoughtSignature !== undefined) {
    cursor.open = undefined;
    pieces.push({
      type: 'reasoning.encrypted',
      data: part.thoughtSignature,
      id: callId ?? null,
      format: GEMINI_FORMAT,
      index: cursor.next++,
    });
  }
  return pieces;
}

/** Pieces of one index as one: a text piece's text joined, as a client accumulates a stream. */
export function joinByIndex(pieces: readonly ReasoningDetail[]): ReasoningDetail[] {
  const joined: ReasoningDetail[] = [];
  for (const piece of pieces) {
    const last = joined.at(-1);
    if (
      last?.type === 'reasoning.text' &&
      piece.type === 'reasoning.text' &&
      last.index === piece.index
    ) {
      joined[joined.length - 1] = { ...last, text: last.text + piece.text };
    } else {
      joined.push(piece);
    }
  }
  return joined;
}

/**
 * The signatures an assistant message gives back, from its `reasoning_details` of Gemini's
 * format (pieces of other kinds are dropped: their provider wrote them): by tool call id, and
 * those of no call, in order, for its text.
 */
export function signaturesOf(details: readonly ReasoningDetail[] | undefined): {
  readonly byCall: ReadonlyMap<string, string>;
  readonly ofText: readonly string[];
} {
  const byCall = new Map<string, string>();
  const ofText: string[] = [];
  for (const piece of details ?? []) {
    if (piece.type !== 'reasoning.encrypted' || piece.format !== GEMINI_FORMAT) continue;
    if (piece.id == null) ofText.push(piece.data);
    else byCall.set(piece.id, piece.data);
  }
  return { byCall, ofText };
}
