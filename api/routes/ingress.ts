import { acceptProviderCallback } from '../../domain/jobs/provider-callback';
import { defineRoute, type AnyRoute } from '../http/route';
import { z } from '../../domain/schemas/zod';

// Callbacks from outside providers: verified by their own secret, never in the public document.
const asrCallback = defineRoute({
  method: 'post',
  path: '/ingress/asr/assemblyai',
  operationId: 'asrProviderCallback',
  summary: 'Recognition provider callback',
  tags: ['Ingress'],
  auth: { kind: 'public' },
  internal: true,
  body: z.object({ transcript_id: z.string(), status: z.string() }).passthrough(),
  responses: { 200: { description: 'Accepted.' } },
  errors: ['UNAUTHENTICATED'],
  handler: async ({ deps, req, body }) => ({
    status: 200,
    body: await acceptProviderCallback(deps.db, deps.temporal, deps.cloudRecognizer, req.headers, body),
  }),
});

export const ingressRoutes: AnyRoute[] = [asrCallback];
