import type { RouteSpec } from '../http/route';
import { accountRoutes } from './account';
import { batchRoutes } from './batches';
import { webhookRoutes } from './webhooks';
import { uploadRoutes } from './uploads';
import { ingressRoutes } from './ingress';
import { jobRoutes } from './jobs';
import { transcriptRoutes } from './transcripts';
import { plannedRoutes } from './planned';
import { usageRoutes } from './usage';

/** Every public route. A feature module replaces its planned (501) declaration by operationId. */
const built: RouteSpec<any, any, any>[] = [...usageRoutes, ...accountRoutes, ...jobRoutes, ...transcriptRoutes, ...batchRoutes, ...webhookRoutes, ...uploadRoutes, ...ingressRoutes];
const builtIds = new Set(built.map((r) => r.operationId));

export const allRoutes: RouteSpec<any, any, any>[] = [...built, ...plannedRoutes.filter((r) => !builtIds.has(r.operationId))];
