/**
 * The built-in issuer's own clients, known to it without a registration: the studio (its
 * pages' sign-in) and the `mnemo` command line (the device flow of `mnemo login`). Both sides
 * name them: the authorization server describes them (oauth/client-metadata.ts), and the command
 * line presents its id, loading no more than this part to do so.
 */
export const STUDIO_CLIENT_ID = 'mnemo-studio';
export const CLI_CLIENT_ID = 'mnemo-cli';
