/**
 * The chat-completions-compatible gateway under /v1: its routes, the router, one adapter per
 * provider kind, and memory in chat calls through its port. This file is the part's front door:
 * what other parts may use of it. The rest of the folder is private to it.
 */

export { createCallUsage } from './call-usage.ts';
export type { Catalog } from './catalog.ts';
export { createCircuitBreaker } from './circuit-breaker.ts';
export { createDispatcher } from './dispatch.ts';
export { registerGatewayRoutes } from './gateway.routes.ts';
export { GatewayConfigError, loadCatalog } from './gateway-config.ts';
export type { MemoryCalls } from './memory/memory-calls.ts';
export { createMemoryCalls, extractionModelId } from './memory/memory-calls.ts';
export { openAiErrorShape } from './openai-errors.ts';
export { createProviders } from './providers/provider-kinds.ts';
export { createTransport } from './providers/transport.ts';
export { registerWebSocketSupport } from './responses/responses.websocket.routes.ts';
export { createSealer } from './sealing.ts';
export { createSearchEmbedders } from './search-embedder.ts';
export { catalogSummary } from './setup-guidance.ts';
