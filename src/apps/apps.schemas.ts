import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { BLANK_NAME } from '../platform/errors.ts';
import { NOT_BLANK_TEXT_PATTERN } from '../platform/openapi-text-rule.ts';

export const AppRole = Type.Enum(['admin', 'member'], {
  description:
    "The app's role in the organization: admin to register end users and act for them whatever the organization's setting; member for its own memories and the projects it is granted",
});

const AppName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: NOT_BLANK_TEXT_PATTERN,
  errorMessage: { minLength: BLANK_NAME, pattern: BLANK_NAME },
  description: 'Shown in the studio',
});

const RateLimit = Type.Integer({
  minimum: 1,
  description:
    'Requests a minute its credentials may make, in place of the default; at most the ceiling the operator sets (MNEMO_APP_RATE_LIMIT_MAX). Applies to tokens issued from then on',
});

export const AppParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  appId: Type.String({ description: "The app's OAuth client id" }),
});

export const App = Type.Object(
  {
    id: Type.String({ description: 'The OAuth client id (`mnemo_client_…`): client_credentials' }),
    name: Type.String(),
    userId: Uuid("The app's identity: the subject of its tokens, the actor of its acts"),
    role: AppRole,
    rateLimitPerMinute: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Its own limit; null: the default for every credential',
    }),
    createdAt: Timestamp('When the app was registered'),
  },
  { $id: 'App', additionalProperties: false },
);
export type App = Static<typeof App>;

export const RateLimits = Type.Object(
  {
    defaultPerMinute: Type.Integer({
      description: 'What every credential may make a minute (0: rate limits are off)',
    }),
    maxPerMinute: Type.Integer({ description: 'The most an app may be given' }),
  },
  { additionalProperties: false, description: "This server's request rates" },
);

export const AppsResponse = Type.Object(
  { apps: Type.Array(App, { description: 'Oldest first' }), rateLimits: RateLimits },
  { description: "The organization's apps" },
);
export const AppResponse = Type.Object({ app: App }, { description: 'The app' });
export const AppWithSecretResponse = Type.Object(
  {
    app: App,
    secret: Type.String({
      description:
        'The client secret (`mnemo_cs_…`), shown this once: only its hash is kept. With the id, it gets a platform credential by client_credentials',
    }),
  },
  { description: 'The app and its secret' },
);

export const AppCreateBody = Type.Object(
  {
    name: AppName,
    role: Type.Optional(AppRole),
    rateLimitPerMinute: Type.Optional(RateLimit),
  },
  { additionalProperties: false, description: 'role: member unless given' },
);
export type AppCreateBody = Static<typeof AppCreateBody>;

export const AppPatchBody = Type.Object(
  {
    name: Type.Optional(AppName),
    role: Type.Optional(AppRole),
    rateLimitPerMinute: Type.Optional(
      Type.Union([RateLimit, Type.Null()], { description: 'null: back to the default' }),
    ),
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['name'] }, { required: ['role'] }, { required: ['rateLimitPerMinute'] }],
    errorMessage: 'at least one of name, role or rateLimitPerMinute is required',
    description: 'At least one field',
  },
);
export type AppPatchBody = Static<typeof AppPatchBody>;
