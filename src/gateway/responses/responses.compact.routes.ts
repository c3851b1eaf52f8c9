import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { CallUsage } from '../call-usage.ts';
import { abortWhenGone } from '../caller-connection.ts';
import { GATEWAY_BODY_LIMIT } from '../chat.routes.ts';
import { nullable } from '../chat.schemas.ts';
import { checkBody } from '../chat.validation.ts';
import type { Dispatcher } from '../dispatch.ts';
import {
  API_KEY_SECURITY,
  documentedOnly,
  errorAnswer,
  GATEWAY_TAG,
  modelCallErrors,
  otherMethods,
  REQUEST_ID_HEADER,
  ROUTING_HEADERS,
} from '../gateway.openapi.ts';
import { GatewayError, invalidRequest } from '../openai-errors.ts';
import type { Sealer } from '../sealing.ts';
import {
  COMPACTION_PROMPT,
  expandCompactions,
  previousResponseNotFound,
  type SealedCompaction,
} from './responses.compact.ts';
import { newResponseIds, toUsage } from './responses.mapping.ts';
import { toChatRequest } from './responses.request.ts';
import {
  ContentPart,
  InputItem,
  type MessageItem,
  ResponsesRequest,
  ResponseUsage,
} from './responses.schemas.ts';

/**
 * The body of `POST /v1/responses/compact`: the conversation to compact, as `/v1/responses`
 * takes it; fields not named here (`prompt_cache_key`, …) are accepted and ignored.
 */
export const CompactRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Optional(Type.Union([Type.String(), Type.Array(InputItem, { minItems: 1 })])),
  instructions: nullable(Type.String()),
  /** This server keeps no responses: any id is one it cannot find. */
  previous_response_id: nullable(Type.String()),
});
export type CompactRequest = Static<typeof CompactRequest>;

const checkRequest = Compile(CompactRequest);

/**
 * The body as the document states it: CompactRequest with `input` required too, which the route
 * checks after refusing a `previous_response_id`.
 */
const CompactRequestBody = Type.Object({
  ...CompactRequest.properties,
  input: ResponsesRequest.properties.input,
});

/** A user message of the compacted window, as the API lists it in `output`. */
const KeptMessage = Type.Object({
  id: Type.String(),
  type: Type.Literal('message'),
  status: Type.Literal('completed'),
  role: Type.Literal('user'),
  content: Type.Array(ContentPart),
});
type KeptMessage = Static<typeof KeptMessage>;

export const CompactionItem = Type.Object({
  id: Type.String(),
  type: Type.Literal('compaction'),
  encrypted_content: Type.String({
    description: 'The summary, sealed by mnemo: send the item back in a later `input`',
  }),
});
export type CompactionItem = Static<typeof CompactionItem>;

/** The answer of `POST /v1/responses/compact` (`CompactedResponse` in OpenAI's SDKs). */
export const CompactedResponse = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response.compaction'),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    output: Type.Array(Type.Union([KeptMessage, CompactionItem]), {
      description: 'The compacted window: the user’s messages as they were, then one compaction',
    }),
    usage: ResponseUsage,
  },
  { $id: 'CompactedResponse' },
);
export type CompactedResponse = Static<typeof CompactedResponse>;

/** `POST /v1/responses/compact` in /openapi.json (gateway.openapi.ts). */
const COMPACT_OPERATION = {
  summary: 'Compact a conversation into its user messages and one sealed summary',
  description: [
    'OpenAI’s compaction: the model asked (or the router’s choice) summarizes `input`, the conversation as /v1/responses takes it, with `instructions` as its system message. Send the answer’s `output`, plus what comes next, as the `input` of the next request.',
    'Refused with 400 beyond the schema: any `previous_response_id` (`previous_response_not_found`: nothing is stored); and what /v1/responses refuses in an `input`.',
    otherMethods('POST'),
  ].join('\n\n'),
  tags: [GATEWAY_TAG],
  security: API_KEY_SECURITY,
  body: CompactRequestBody,
  response: {
    200: {
      description: 'The compacted window (`object: "response.compaction"`)',
      headers: { ...REQUEST_ID_HEADER, ...ROUTING_HEADERS },
      allOf: [CompactedResponse],
    },
    ...modelCallErrors(
      'The body breaks its schema (`missing_required_parameter`, `invalid_type`, `invalid_value`, naming the parameter), is no JSON (`malformed_json`) or nests deeper than 100 levels (`json_too_deep`), or a rule beyond the schema (see the description); or the provider’s own 400',
    ),
    502: errorAnswer(
      'The model answered with no summary; or `provider_unreachable`, `provider_auth_failed` (the provider refused mnemo’s own key), or the provider’s own 502',
      ROUTING_HEADERS,
    ),
  },
};

export interface CompactRouteDeps {
  readonly dispatcher: Dispatcher;
  readonly usage: CallUsage;
  readonly sealer: Sealer;
}

/**
 * `POST /v1/responses/compact`: the model asked (or the router's choice) summarizes the
 * conversation, through the dispatcher like any chat call (usage recorded); the answer is the
 * compacted window, the user's messages kept as they were and then one `compaction` item whose
 * `encrypted_content` seals the summary. Sent back in the `input` of a later request, the item
 * is opened into the summary (expandCompactions) before anything reaches a provider.
 */
export function registerCompactRoute(app: FastifyInstance, deps: CompactRouteDeps): void {
  const { dispatcher, usage, sealer } = deps;

  app.post(
    '/responses/compact',
    { bodyLimit: GATEWAY_BODY_LIMIT, config: documentedOnly(COMPACT_OPERATION) },
    async (request, reply) => {
      const startedAt = Date.now();
      const body = checkBody(checkRequest, request.body);
      if (body instanceof GatewayError) throw body;
      if (body.previous_response_id != null) {
        throw previousResponseNotFound(body.previous_response_id);
      }
      if (body.input === undefined) {
        throw invalidRequest(
          "Missing required parameter: 'input'.",
          'missing_required_parameter',
          'input',
        );
      }
      const expanded = await expandCompactions(body, sealer);
      if (expanded instanceof GatewayError) throw expanded;
      const input = expanded.input ?? [];
      const conversation = await toChatRequest(
        {
          model: body.model,
          input,
          ...(body.instructions != null && { instructions: body.instructions }),
        },
        sealer,
      );
      if (conversation instanceof GatewayError) throw conversation;
      const chat = {
        model: body.model,
        messages: [...conversation.messages, { role: 'user' as const, content: COMPACTION_PROMPT }],
      };

      const caller = request.keyHolder;
      const signal = abortWhenGone(reply);
      const dispatched = await dispatcher.complete(chat, signal);
      if (!dispatched.ok) {
        usage.finished({
          caller,
          model: dispatched.model,
          usage: undefined,
          status: signal.aborted ? 499 : dispatched.error.status,
          startedAt,
        });
        throw dispatched.error;
      }
      const completion = dispatched.value;
      const summary = completion.choices[0]?.message.content ?? '';
      if (summary.trim() === '') {
        usage.finished({
          caller,
          model: dispatched.model,
          usage: completion.usage,
          status: 502,
          startedAt,
        });
        throw new GatewayError(502, {
          message: `The model ${completion.model} answered the compaction with no summary; try again, or another model.`,
          type: 'server_error',
          param: null,
          code: null,
        });
      }
      usage.finished({
        caller,
        model: dispatched.model,
        usage: completion.usage,
        status: 200,
        startedAt,
      });

      const ids = newResponseIds();
      const sealed: SealedCompaction = { summary, model: completion.model };
      const compacted: CompactedResponse = {
        id: ids.response,
        object: 'response.compaction',
        created_at: ids.createdAt,
        output: [
          ...keptMessages(input, () => ids.item('msg')),
          {
            id: `cmp_${randomBytes(24).toString('hex')}`,
            type: 'compaction',
            encrypted_content: await sealer.seal('compaction', sealed),
          },
        ],
        usage: toUsage(completion.usage),
      };
      return reply.headers(dispatched.headers).send(compacted);
    },
  );
}

/** The user's messages of the conversation, in order, in the long form with their own ids. */
function keptMessages(input: string | readonly InputItem[], newId: () => string): KeptMessage[] {
  const items: readonly InputItem[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const kept: KeptMessage[] = [];
  for (const item of items) {
    if (!isUserMessage(item)) continue;
    kept.push({
      id: newId(),
      type: 'message',
      status: 'completed',
      role: 'user',
      content:
        typeof item.content === 'string'
          ? [{ type: 'input_text', text: item.content }]
          : item.content,
    });
  }
  return kept;
}

const isUserMessage = (item: InputItem): item is MessageItem =>
  (item.type === undefined || item.type === 'message') && 'role' in item && item.role === 'user';
