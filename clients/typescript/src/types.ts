/**
 * The memory API's shapes, named from the types generated from mnemo's /openapi.json
 * (`npm run client:api-types` writes openapi.d.ts): nothing here is restated by hand.
 */
import type { components, paths } from './openapi.d.ts';

type Memory = paths['/api/v1/memory'];
type MemoryById = paths['/api/v1/memory/{id}'];
type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** A memory as every answer prints it. */
export type MemoryItem = components['schemas']['MemoryItem'];
/** One of the six categories. */
export type Category = NonNullable<MemoryItem['category']>;

export type ListQuery = NonNullable<Memory['get']['parameters']['query']>;
export type ListResponse = Json<Memory['get']['responses'][200]>;

type AddBody = Json<Memory['post']['requestBody']>;
/**
 * What an add takes. The document accepts any `category` (an unknown one is dropped without an
 * error); the client takes the six, or `null` for none.
 */
export type AddInput = Omit<AddBody, 'category'> & { category?: Category | null };
/** The existing memory an add was folded into: its id and content only. */
export type FoldedMemory = Json<Memory['post']['responses'][200]>['memory'];
/**
 * An add's answer: `201` a new memory, or `200` when it was folded into an equal memory of the
 * store and nothing new was stored.
 */
export type AddResult =
  | { readonly created: true; readonly memory: MemoryItem }
  | { readonly created: false; readonly memory: FoldedMemory };

/**
 * A change: `content`, `category` (`null` removes it), or both. The document states the request
 * as an `anyOf` of required fields, which openapi-typescript turns into `unknown`: its fields are
 * named here from the memory's own.
 */
export interface UpdateInput {
  readonly content?: MemoryItem['content'];
  readonly category?: Category | null;
  /** The `updatedAt` last read: with optimistic concurrency on, a later change answers 409. */
  readonly baseUpdatedAt?: MemoryItem['updatedAt'];
}

export type SearchQuery = paths['/api/v1/memory/search']['get']['parameters']['query'];
export type SearchResponse = Json<paths['/api/v1/memory/search']['get']['responses'][200]>;

type ImportBody = Json<paths['/api/v1/memory/import']['post']['requestBody']>;
/** One memory of an import, as the API describes its items. */
export interface ImportItem {
  readonly content: string;
  readonly category?: Category | null;
  /** RFC 3339 with its offset, from 1970 and not in the future: kept as the memory's. */
  readonly createdAt?: string;
}
export type ImportInput = Omit<ImportBody, 'memories'> & { memories: readonly ImportItem[] };
export type ImportResponse = Json<paths['/api/v1/memory/import']['post']['responses'][200]>;

export type EraseQuery = NonNullable<Memory['delete']['parameters']['query']>;
export type EraseResponse = Json<Memory['delete']['responses'][200]>;

/** Whose changes a stream follows, and from where: `since`, `user`, `project` as on the list. */
export type EventsQuery = NonNullable<paths['/api/v1/memory/events']['get']['parameters']['query']>;

export type ExportQuery = NonNullable<paths['/api/v1/memory/export']['get']['parameters']['query']>;

/** Whose memories: `user` (a member's UUID) on every operation that reads or writes one. */
export type UserOption = NonNullable<MemoryById['get']['parameters']['query']>;

type EndUserPath = paths['/api/v1/orgs/{orgId}/end-users/{externalId}'];
/** A person an app remembers, registered under the app's own id (`externalId`). */
export type EndUser = components['schemas']['EndUser'];
/** An end user with how many memories are held of them, as `GET` answers. */
export type EndUserDetails = Json<EndUserPath['get']['responses'][200]>['endUser'];
export type EndUserListQuery = NonNullable<
  paths['/api/v1/orgs/{orgId}/end-users']['get']['parameters']['query']
>;
export type EndUserPage = Json<paths['/api/v1/orgs/{orgId}/end-users']['get']['responses'][200]>;
/** What registering takes: a display name, which replaces the one held. */
export type EndUserInput = NonNullable<Json<EndUserPath['put']['requestBody']>>;
/** `created` is true when this call registered the end user (201), false when it existed (200). */
export interface EndUserRegistration {
  readonly created: boolean;
  readonly endUser: EndUser;
}
