/**
 * The grants a client may be given, by the names `mnemo admin client create --grant` takes and
 * the store keeps (client-metadata.ts maps them to OAuth's identifiers).
 */
export const CLIENT_GRANTS = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'device_code',
] as const;
export type ClientGrant = (typeof CLIENT_GRANTS)[number];
