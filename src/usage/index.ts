/**
 * Usage: what each call through /v1 cost, recorded, summed and exported. This file is the part's
 * front door: what other parts may use of it. The rest of the folder is private to it.
 */
export { costMicroUsd } from './usage.cost.ts';
export type { UsageKind, UsageRecorder } from './usage.recorder.ts';
export { createUsageRecorder } from './usage.recorder.ts';
export { registerUsageRoutes } from './usage.routes.ts';
export { createUsageService } from './usage.service.ts';
