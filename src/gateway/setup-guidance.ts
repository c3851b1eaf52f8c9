import type { Catalog } from './catalog.ts';
import { GatewayError, modelNotFound } from './openai-errors.ts';

/**
 * How an operator gives the gateway something to route to, said wherever an empty catalog shows:
 * the start banner, an unknown model, the router without models. Without it a fresh server
 * answers only "model not found", which does not say that nothing is configured.
 */
export const SETUP_HINT =
  "set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY in the server's environment, or list providers and models in mnemo.config.json (see docs/gateway.md)";

/** The catalog has nothing to route to: no provider, or providers without a model. */
export const isEmptyCatalog = (catalog: Catalog) => catalog.models.length === 0;

/**
 * The catalog in a few words, for the start banner.
 *
 * @example
 * catalogSummary(catalog); // '3 models from 2 providers'
 * catalogSummary(empty);   // 'no provider configured — see docs/gateway.md'
 */
export function catalogSummary(catalog: Catalog): string {
  const providers = catalog.providers.size;
  if (providers === 0) return 'no provider configured — see docs/gateway.md';
  if (isEmptyCatalog(catalog)) return 'no model configured — see docs/gateway.md';
  const models = catalog.models.length;
  return `${plural(models, 'model')} from ${plural(providers, 'provider')}`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** 404 `model_not_found`; when nothing is configured at all, it says how to configure a model. */
export function unknownModel(id: string, catalog: Catalog): GatewayError {
  const error = modelNotFound(id);
  if (!isEmptyCatalog(catalog)) return error;
  return new GatewayError(
    error.status,
    {
      ...error.body.error,
      message: `${error.message} This server has no model configured: ${SETUP_HINT}.`,
    },
    { ...error.headers },
  );
}
