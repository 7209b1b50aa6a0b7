export { TranscriptClient, FINAL_JOB_STATUSES, mediaTypeOf, paginate } from './client';
export type {
  Batch,
  BatchRequest,
  Capabilities,
  ClientOptions,
  ExportFormat,
  Job,
  JobRequest,
  ListJobsQuery,
  Schemas,
  Transcript,
  Upload,
  Usage,
  WaitOptions,
} from './client';
export { TranscriptApiError, TranscriptTimeoutError, WebhookVerificationError } from './errors';
export type { ErrorEnvelope } from './errors';
export { DEFAULT_RETRY, retryingFetch, type RetryPolicy } from './http';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './webhooks';
export type { components, paths } from './schema';
