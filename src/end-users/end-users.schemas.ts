import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { PageCursor, PageLimit } from '../platform/paging.ts';
import { Name } from '../tenancy/index.ts';

/** A page of the end-user list: its size by default, and at most. */
export const END_USERS_PAGE = { default: 50, max: 200 };

/** The longest external id an app may register, in characters. */
export const MAX_EXTERNAL_ID_CHARS = 200;

export const EndUserParams = Type.Object({
  orgId: Type.String({ description: 'Organization id' }),
  externalId: Type.String({
    description: `The end user's id in the app's own terms: 1 to ${MAX_EXTERNAL_ID_CHARS} characters, no control characters, percent-encoded in the path (a / as %2F)`,
  }),
});

export const EndUser = Type.Object(
  {
    id: Uuid(
      "The end user's mnemo id: the memory API's `user` (query on GET, PATCH and DELETE, body on POST)",
    ),
    externalId: Type.String({ description: "The end user's id in the app's own terms" }),
    name: Type.Optional(Type.String({ description: 'Absent when none was given' })),
    createdAt: Timestamp('When the end user was registered'),
  },
  { $id: 'EndUser', additionalProperties: false },
);
export type EndUser = Static<typeof EndUser>;

export const EndUserResponse = Type.Object(
  { endUser: EndUser },
  { description: 'The end user; 201 when this request registered it, 200 when it existed' },
);

export const EndUserDetailResponse = Type.Object(
  {
    endUser: Type.Object(
      {
        ...EndUser.properties,
        memories: Type.Object(
          {
            own: Type.Integer({ description: 'Active memories in their own store' }),
            pools: Type.Integer({
              description: 'Active memories they contributed to project pools',
            }),
          },
          {
            additionalProperties: false,
            description: 'What the organization holds of them: what an erasure deletes',
          },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'The end user, with how many memories are held of them' },
);

export const EndUserBody = Type.Object(
  { name: Type.Optional(Name('A display name; on an existing end user, replaces the one held')) },
  {
    additionalProperties: false,
    description: 'Optional: the request may have no body at all',
  },
);
export type EndUserBody = Static<typeof EndUserBody>;

export const EndUsersQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('End users', END_USERS_PAGE.default, END_USERS_PAGE.max)),
    cursor: Type.Optional(PageCursor('The `cursor` of the previous page: the page after it')),
    q: Type.Optional(
      Type.String({
        description:
          'Keeps the end users whose external id or name starts with it (letter case ignored)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EndUsersQuery = Static<typeof EndUsersQuery>;

export const EndUsersResponse = Type.Object(
  {
    endUsers: Type.Array(EndUser, { description: 'Newest first' }),
    total: Type.Integer({ description: 'How many end users match, in all pages' }),
    cursor: Type.Optional(
      Type.String({ description: 'Present when there are more: pass it as `cursor`' }),
    ),
  },
  { description: "A page of the organization's end users" },
);
export type EndUsersResponse = Static<typeof EndUsersResponse>;
