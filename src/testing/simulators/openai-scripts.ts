// What a test scripts the OpenAI-compatible simulator to answer (openai-simulator.ts), in a
// file of its own so that the Responses part of the simulator reads it too without a cycle.

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** The JSON text of the arguments, as the model writes it. */
  readonly arguments: string;
}

/**
 * A reasoning model's thinking before its answer, as OpenAI-compatible servers return it:
 * `message.reasoning` (OpenRouter, vLLM 0.9 and later, Ollama) or `message.reasoning_content`
 * (DeepSeek, LiteLLM), in streams `delta.reasoning` (or `delta.reasoning_content`) pieces
 * before the content; `details` (OpenRouter's `reasoning_details`) come whole, in the message
 * and in one delta. Its tokens are counted in `completion_tokens_details.reasoning_tokens`, and
 * within `completion_tokens`.
 */
export interface ScriptedReasoning {
  readonly text: string;
  /** Default `reasoning`. */
  readonly field?: 'reasoning' | 'reasoning_content';
  readonly details?: readonly object[];
}

export type Scripted =
  | {
      kind: 'text';
      text: string;
      finishReason?: FinishReason;
      usage?: { prompt_tokens?: number; completion_tokens?: number };
      reasoning?: ScriptedReasoning;
    }
  | { kind: 'tool_calls'; calls: readonly ScriptedToolCall[]; reasoning?: ScriptedReasoning }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** Destroys the socket without a response. */
  | { kind: 'drop' }
  /**
   * Streams `text` (default "Partial answer") then an error event and ends (for `/v1/responses`,
   * an `error` event then `response.failed`); 500 when not streaming.
   */
  | { kind: 'error-mid-stream'; text?: string };
