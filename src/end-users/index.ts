/**
 * The end users an app remembers, known by the app's own ids. This file is the part's front door:
 * what other parts may use of it. The rest of the folder is private to it.
 */
export { deleteEndUserRow } from './end-users.repository.ts';
export { registerEndUsersRoutes } from './end-users.routes.ts';
export { createEndUsersService } from './end-users.service.ts';
