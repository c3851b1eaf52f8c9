import type { Environment } from '../config.ts';
import { isStoreUnavailable } from '../db/availability.ts';
import type { MemoryService } from '../memory/index.ts';
import { memoryFeatureOff } from '../memory/index.ts';
import { ApiError } from '../platform/errors.ts';
import { STORE_UNAVAILABLE_MESSAGE } from '../platform/failure.ts';
import type { Caller, OrganizationsService, ProjectsService } from '../tenancy/index.ts';
import { memoryEnabled, notAMember } from '../tenancy/index.ts';
import type { ListOutput } from './memory-tools.schemas.ts';
import type { MemoryToolsBackend } from './memory-tools.ts';

export interface ServiceBackendDeps {
  readonly memory: MemoryService;
  readonly projects: ProjectsService;
  readonly organizations: OrganizationsService;
  readonly environment: Environment;
}

/** The API's answer when the store cannot be reached: the request did not happen. */
const storeUnavailable = () => new ApiError(503, 'service_unavailable', STORE_UNAVAILABLE_MESSAGE);

/**
 * The tools in the process: the services the memory API's routes call, for the caller `/mcp`
 * admitted, so every rule, refusal and audit entry is theirs. What the routes add around a
 * service is added here: the memory switch (the memory tools only), and the store's outage as
 * the API's 503 sentence.
 *
 * @example
 * const backendFor = createServiceBackends({ memory, projects, organizations, environment });
 * createMemoryToolsServer(backendFor(request.caller), options);
 */
export function createServiceBackends(deps: ServiceBackendDeps) {
  const { memory } = deps;

  return (caller: Caller): MemoryToolsBackend => {
    /** A memory tool: refused like the API while memory is switched off for the organization. */
    const memoryTool = async <T>(run: () => Promise<T>) => {
      if (!memoryEnabled(deps.environment, caller.memoryEnabled)) throw memoryFeatureOff();
      return storeOutage(run);
    };

    return {
      search: ({ query, category, limit, project, user }) =>
        memoryTool(() =>
          memory.search(caller, {
            q: query,
            ...(category === undefined ? {} : { category }),
            ...(limit === undefined ? {} : { limit }),
            ...(project === undefined ? {} : { project }),
            ...(user === undefined ? {} : { user }),
          }),
        ),
      list: (input) =>
        // Already the JSON of the answer (the list cache keeps it so).
        memoryTool(async () => JSON.parse(await memory.list(caller, input)) as ListOutput),
      get: ({ id, user }) => memoryTool(() => memory.get(caller, id, user)),
      add: ({ content, category, project, user }) =>
        memoryTool(async () => {
          const outcome = await memory.add(caller, {
            content,
            ...(category === undefined ? {} : { category }),
            ...(project === undefined ? {} : { project }),
            ...(user === undefined ? {} : { user }),
          });
          return { memory: outcome.memory, folded: !outcome.created };
        }),
      update: ({ id, user, content, category }) =>
        memoryTool(() =>
          memory.update(caller, id, user, {
            ...(content === undefined ? {} : { content }),
            ...(category === undefined ? {} : { category }),
          }),
        ),
      remove: ({ id, user }) => memoryTool(() => memory.remove(caller, id, user)),
      listProjects: () => storeOutage(async () => ({ projects: await deps.projects.list(caller) })),
      whoami: () =>
        storeOutage(async () => {
          const me = await deps.organizations.me(caller.userId);
          const organization = me.organizations.find((org) => org.id === caller.orgId);
          // Admitted a moment ago; removed since, the caller is what admission would now say.
          if (!organization) throw notAMember();
          return {
            user: me.user,
            organization: { id: organization.id, name: organization.name },
            role: organization.role,
          };
        }),
    };
  };
}

async function storeOutage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw isStoreUnavailable(error) ? storeUnavailable() : error;
  }
}
