const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are stored in lower case; a UUID in another case names the same thing. */
export function parseUuid(value: string | undefined): string | undefined {
  return value !== undefined && UUID.test(value) ? value.toLowerCase() : undefined;
}
