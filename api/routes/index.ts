import type { RouteSpec } from '../http/route';
import { accountRoutes } from './account';
import { batchRoutes } from './batches';
import { ingressRoutes } from './ingress';
import { jobRoutes } from './jobs';
import { plannedRoutes } from './planned';
import { transcriptRoutes } from './transcripts';
import { uploadRoutes } from './uploads';
import { usageRoutes } from './usage';
import { webhookRoutes } from './webhooks';

/** Every route: the built feature modules, then the planned ones (501 until built). */
export const allRoutes: RouteSpec<any, any, any>[] = [
  ...usageRoutes,
  ...accountRoutes,
  ...jobRoutes,
  ...transcriptRoutes,
  ...batchRoutes,
  ...webhookRoutes,
  ...uploadRoutes,
  ...ingressRoutes,
  ...plannedRoutes,
];
