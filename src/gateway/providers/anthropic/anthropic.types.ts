/**
 * The wire format of Anthropic's Messages API (`POST /v1/messages`, `anthropic-version:
 * 2023-06-01`), as its API reference gives it: the parts mnemo sends and reads. Fields the
 * gateway never sets or reads are left out; answers may carry more than is named here.
 */

export const ANTHROPIC_VERSION = '2023-06-01';

export interface TextBlockParam {
  type: 'text';
  /** Anthropic refuses empty and whitespace-only text blocks. */
  text: string;
}

export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export interface ImageBlockParam {
  type: 'image';
  source:
    | { type: 'base64'; media_type: ImageMediaType; data: string }
    | { type: 'url'; url: string };
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  /** An object, as the tool's `input_schema` describes it. */
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content: string | TextBlockParam[];
}

/**
 * A thinking block as Anthropic answered it, sent back unchanged: Anthropic checks the
 * signature, and refuses a block whose text or signature changed.
 */
export interface ThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking Anthropic's safety systems sealed: opaque `data`, sent back unchanged. */
export interface RedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

export type UserBlock = TextBlockParam | ImageBlockParam | ToolResultBlockParam;
/** Thinking blocks come first in a turn, before its text and tool calls. */
export type AssistantBlock =
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | TextBlockParam
  | ToolUseBlockParam;

/** Turns alternate between `user` and `assistant`; the system prompt is not a turn. */
export type MessageParam =
  | { role: 'user'; content: UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] };

export interface Tool {
  name: string;
  description?: string;
  /** A JSON Schema whose root is an object. */
  input_schema: Record<string, unknown>;
}

/** `disable_parallel_tool_use` caps the answer at one tool call. */
export type ToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface MessagesRequest {
  model: string;
  /** Required: the most tokens the answer may take. */
  max_tokens: number;
  messages: MessageParam[];
  system?: string;
  stop_sequences?: string[];
  /** 0 to 1. */
  temperature?: number;
  top_p?: number;
  tools?: Tool[];
  tool_choice?: ToolChoice;
  metadata?: { user_id: string };
  /**
   * Extended thinking: `budget_tokens` is at least 1024 and below `max_tokens`, which counts
   * the thinking too. Thinking refuses a temperature other than 1, `top_k`, a `top_p` below
   * 0.95, and a `tool_choice` that forces a tool (`any`, `tool`).
   */
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream?: boolean;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** The model's thinking, with the signature Anthropic checks when it is sent back. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * The blocks mnemo translates. Others (server tools' blocks) come only with features the
 * gateway does not ask for, and are skipped by their `type`.
 */
export type ContentBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** Total input is `input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens`. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** A whole answer; in a stream, `message_start` carries it with empty `content`. */
export interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  content: ContentBlock[];
  model: string;
  /** Null only in `message_start`. */
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: Usage;
}

/** The event `type` of each server-sent event repeats its `event:` name. */
export type StreamEvent =
  | { type: 'message_start'; message: Message }
  | { type: 'content_block_start'; index: number; content_block: ContentBlock }
  | {
      type: 'content_block_delta';
      index: number;
      delta:
        | { type: 'text_delta'; text: string }
        | { type: 'input_json_delta'; partial_json: string }
        | { type: 'thinking_delta'; thinking: string }
        /** Just before the thinking block's `content_block_stop`. */
        | { type: 'signature_delta'; signature: string };
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: StopReason | null; stop_sequence: string | null };
      /** Cumulative counts; the input ones may be absent or null. */
      usage: Partial<Usage> & { output_tokens: number };
    }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | ErrorBody;

/**
 * Every error, as a response body or as a stream's `error` event. The `type` values Anthropic
 * documents: `invalid_request_error` (400), `authentication_error` (401), `billing_error` (402),
 * `permission_error` (403), `not_found_error` (404), `request_too_large` (413),
 * `rate_limit_error` (429), `api_error` (500), `timeout_error` (504), `overloaded_error` (529).
 */
export interface ErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string | null;
}
