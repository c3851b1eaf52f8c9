/**
 * The MCP server: the memory tools over Streamable HTTP (/mcp) and stdio (`mnemo mcp`), on the
 * same services as the memory API. This file is the part's front door: what other parts may use of
 * it. The rest of the folder is private to it.
 */
export { registerMcpRoutes } from './mcp.routes.ts';
export {
  AddOutput,
  ListOutput,
  MemoryOutput,
  ProjectsOutput,
  SearchOutput,
  WhoamiOutput,
} from './memory-tools.schemas.ts';
export type { MemoryToolsBackend } from './memory-tools.ts';
export { createMemoryToolsServer } from './memory-tools.ts';
export { createServiceBackends } from './service-backend.ts';
