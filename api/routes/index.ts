import type { AnyRoute } from '../http/route';
import { accountRoutes } from './account';
import { batchRoutes } from './batches';
import { billingIngressRoutes, billingRoutes } from './billing';
import { discoveryRoutes } from './discoveries';
import { ingressRoutes } from './ingress';
import { jobRoutes } from './jobs';
import { listenRoutes } from './listen';
import { oauthRoutes } from './oauth';
import { searchRoutes } from './search';
import { transcriptRoutes } from './transcripts';
import { uploadRoutes } from './uploads';
import { usageRoutes } from './usage';
import { webhookRoutes } from './webhooks';

/** Every route of the service. */
export const allRoutes: AnyRoute[] = [
  ...usageRoutes,
  ...accountRoutes,
  ...billingRoutes,
  ...jobRoutes,
  ...transcriptRoutes,
  ...searchRoutes,
  ...listenRoutes,
  ...batchRoutes,
  ...webhookRoutes,
  ...uploadRoutes,
  ...ingressRoutes,
  ...billingIngressRoutes,
  ...discoveryRoutes,
  ...oauthRoutes,
];
