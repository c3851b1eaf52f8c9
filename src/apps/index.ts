/**
 * An organization's apps: its own OAuth clients for its backends, with the identity each acts as.
 * This file is the part's front door: what other parts may use of it. The rest of the folder is
 * private to it.
 */
export { registerAppsRoutes } from './apps.routes.ts';
export { createAppsService } from './apps.service.ts';
