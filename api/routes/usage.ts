import { translationSettings } from '../../domain/config';
import { capabilitiesFor } from '../../domain/capabilities';
import { getUsage } from '../../domain/credits/usage';
import { defineRoute, type AnyRoute } from '../http/route';
import { CapabilitiesSchema, UsageSchema } from '../../domain/schemas/account';

const capabilities = defineRoute({
  method: 'get',
  path: '/v1/capabilities',
  operationId: 'getCapabilities',
  summary: 'Capability matrix',
  tags: ['Usage'],
  auth: { kind: 'optional' },
  responses: { 200: { description: "What the caller's plan may do per source.", schema: CapabilitiesSchema } },
  errors: [],
  handler: async ({ principal, deps }) => ({
    status: 200,
    body: capabilitiesFor(principal?.plan ?? null, {
      asrEnabled: deps.config.ASR_ENABLED,
      photosocialEnabled: deps.config.PHOTOSOCIAL_ENABLED,
      recognizer: deps.recognizer,
      embeddingModel: deps.embedder?.model ?? null,
      translation: translationSettings(deps.config),
      summaryModel: deps.config.LLM_BASE_URL ? deps.config.LLM_MODEL : null,
      redaction: deps.redaction,
    }),
  }),
});

const usage = defineRoute({
  method: 'get',
  path: '/v1/usage',
  operationId: 'getUsage',
  summary: 'Credits and plan',
  tags: ['Usage'],
  auth: { kind: 'required', scope: null },
  rateLimit: 'read',
  responses: { 200: { description: 'Usage.', schema: UsageSchema } },
  errors: [],
  handler: async ({ principal, deps }) => ({ status: 200, body: await getUsage(deps, principal.workspaceId) }),
});

export const usageRoutes: AnyRoute[] = [capabilities, usage];
