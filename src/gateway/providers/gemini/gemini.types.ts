/**
 * The Gemini API's wire format (`v1beta`, models.generateContent and
 * models.streamGenerateContent), as far as mnemo writes and reads it. Field names are the JSON
 * names of Google's reference; everything the API marks optional is optional here, and proto3
 * leaves zero values out of its JSON (a candidate's `index` 0 is usually absent).
 */

/** Raw bytes, base64-encoded. */
export interface GeminiBlob {
  readonly mimeType: string;
  readonly data: string;
}

/**
 * Media the API fetches itself: a Files API URI, or a public or signed HTTP(S) URL (the API
 * downloads it while processing the request).
 */
export interface GeminiFileData {
  readonly mimeType: string;
  readonly fileUri: string;
}

export interface GeminiFunctionCall {
  /** Set by some models; the matching functionResponse may carry it back. */
  readonly id?: string;
  readonly name: string;
  /** A JSON object; absent when the function takes no arguments. */
  readonly args?: Record<string, unknown>;
}

export interface GeminiFunctionResponse {
  readonly id?: string;
  readonly name: string;
  /** A JSON object: by convention `{ "result": … }` or `{ "error": … }`. */
  readonly response: Record<string, unknown>;
}

/** What every part may carry beside its data. */
interface PartMetadata {
  /** A part of the model's reasoning, sent only when thoughts were asked for. */
  readonly thought?: boolean;
  /**
   * The model's opaque reasoning state: the API wants it back, on the same part, when the
   * conversation is sent again (Gemini 3 refuses a function call of the current turn without it).
   */
  readonly thoughtSignature?: string;
}

/** One piece of a turn; `data` is a oneof, so a part holds exactly one of these. */
export type GeminiPart = PartMetadata &
  (
    | { readonly text: string }
    | { readonly inlineData: GeminiBlob }
    | { readonly fileData: GeminiFileData }
    | { readonly functionCall: GeminiFunctionCall }
    | { readonly functionResponse: GeminiFunctionResponse }
  );

export type GeminiRole = 'user' | 'model';

export interface GeminiContent {
  readonly role: GeminiRole;
  readonly parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  /**
   * The arguments as JSON Schema; the alternative to `parameters` (the OpenAPI subset), and
   * mutually exclusive with it.
   */
  readonly parametersJsonSchema?: Record<string, unknown>;
}

export interface GeminiTool {
  readonly functionDeclarations: GeminiFunctionDeclaration[];
}

/** AUTO: the model chooses; ANY: it must call a function; NONE: it must not. */
export type GeminiFunctionCallingMode = 'AUTO' | 'ANY' | 'NONE';

export interface GeminiToolConfig {
  readonly functionCallingConfig: {
    readonly mode: GeminiFunctionCallingMode;
    /** Only with ANY: the functions the model may call. */
    readonly allowedFunctionNames?: string[];
  };
}

export interface GeminiGenerationConfig {
  readonly stopSequences?: string[];
  readonly candidateCount?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly seed?: number;
  /** `text/plain` (the default) or `application/json`. */
  readonly responseMimeType?: string;
  /** JSON Schema the answer must follow; needs `responseMimeType: application/json`. */
  readonly responseJsonSchema?: Record<string, unknown>;
  readonly thinkingConfig?: GeminiThinkingConfig;
}

/**
 * How much a thinking model thinks, and whether its thoughts come back: Gemini 2.5 takes a
 * budget in tokens (0 turns thinking off where the model allows it, -1 lets it decide), Gemini
 * 3 a level; a request sets one or the other, never both.
 */
export interface GeminiThinkingConfig {
  /** Thought parts (`thought: true`, summaries of the thinking) in the answer. */
  readonly includeThoughts?: boolean;
  readonly thinkingBudget?: number;
  readonly thinkingLevel?: GeminiThinkingLevel;
}

/** The API's enum, as the Google Gen AI SDK writes it. */
export type GeminiThinkingLevel = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';

/** The body of `POST /v1beta/models/{model}:generateContent` (and `:streamGenerateContent`). */
export interface GenerateContentRequest {
  readonly contents: GeminiContent[];
  /** Text only. */
  readonly systemInstruction?: { readonly parts: { readonly text: string }[] };
  readonly tools?: GeminiTool[];
  readonly toolConfig?: GeminiToolConfig;
  readonly generationConfig?: GeminiGenerationConfig;
}

/** Why a candidate ended; the API adds values over time, so any string may come. */
export type GeminiFinishReason =
  | 'FINISH_REASON_UNSPECIFIED'
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'IMAGE_SAFETY'
  | 'IMAGE_PROHIBITED_CONTENT'
  | 'IMAGE_RECITATION'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS'
  | (string & {});

export interface GeminiCandidate {
  /** Absent, or without parts, when the candidate was blocked before it said anything. */
  readonly content?: { readonly role?: string; readonly parts?: readonly GeminiPart[] };
  /** Absent until the candidate ends: in a stream, only its last event carries it. */
  readonly finishReason?: GeminiFinishReason;
  readonly index?: number;
}

export interface GeminiUsageMetadata {
  /** The whole prompt, cached tokens included. */
  readonly promptTokenCount?: number;
  readonly cachedContentTokenCount?: number;
  /** The answer's tokens, over all candidates; without the thoughts. */
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
  readonly totalTokenCount?: number;
}

export interface GenerateContentResponse {
  readonly candidates?: readonly GeminiCandidate[];
  /** Set when the prompt itself was blocked: there are no candidates then. */
  readonly promptFeedback?: { readonly blockReason?: string };
  readonly usageMetadata?: GeminiUsageMetadata;
  readonly modelVersion?: string;
  readonly responseId?: string;
}

/** One entry of `error.details`, told apart by `@type` (google.rpc.ErrorInfo, RetryInfo, …). */
export interface GeminiErrorDetail {
  readonly '@type'?: string;
  /** google.rpc.ErrorInfo: a constant such as `API_KEY_INVALID`. */
  readonly reason?: string;
  /** google.rpc.RetryInfo: a protobuf Duration in JSON, e.g. `"38s"` or `"1.500s"`. */
  readonly retryDelay?: string;
}

/** Google's error body (AIP-193), on an error status or as a `data:` event mid-stream. */
export interface GeminiErrorBody {
  readonly error: {
    readonly code?: number;
    readonly message?: string;
    /** The google.rpc.Code name: INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE, … */
    readonly status?: string;
    readonly details?: readonly GeminiErrorDetail[];
  };
}

/** models.batchEmbedContents: one EmbedContentRequest per text, each naming the model. */
export interface GeminiBatchEmbedRequest {
  readonly requests: readonly {
    /** `models/{model}`: the same as the URL's. */
    readonly model: string;
    /** Only the text parts are embedded. */
    readonly content: { readonly parts: readonly { readonly text: string }[] };
    /** RETRIEVAL_DOCUMENT, RETRIEVAL_QUERY, SEMANTIC_SIMILARITY, … */
    readonly taskType?: string;
    /** Fewer dimensions than the model's (the first ones); not of unit length then. */
    readonly outputDimensionality?: number;
  }[];
}
