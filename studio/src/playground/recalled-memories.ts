import { data, inOrg } from '../api/client.ts';
import type { Studio } from '../app/studio-context.tsx';

/** A memory an answer recalled: its text, or undefined when the person's list lacks it. */
export interface RecalledMemory {
  readonly id: string;
  readonly content: string | undefined;
}

/**
 * The texts of the memories an answer's `x-mnemo-memories` names. `/v1` gives ids only; the
 * person's own memories are listed once (the playground's key has no project, so they are all a
 * call of it can recall) rather than fetched one by one, which a long recall would spend the
 * person's request budget on.
 */
export async function recalledMemories(
  { api, org }: Pick<Studio, 'api' | 'org'>,
  ids: readonly string[],
): Promise<RecalledMemory[]> {
  const { memories } = await data(api.GET('/api/v1/memory', { params: { header: inOrg(org.id) } }));
  const byId = new Map(memories.map((memory) => [memory.id, memory.content]));
  return ids.map((id) => ({ id, content: byId.get(id) }));
}
