/**
 * Serving the studio's build under /studio. This file is the part's front door: what other parts
 * may use of it. The rest of the folder is private to it.
 */
export { registerStudioRoutes, STUDIO_BUILD_DIR } from './studio.routes.ts';
