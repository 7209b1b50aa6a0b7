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
export { ListenError, type ListenClosed, type ListenMessage, type ListenSegment, type ListenSession, type ListenStream } from './listen';
export { TranscriptApiError, TranscriptTimeoutError, WebhookVerificationError } from './errors';
export type { ErrorEnvelope } from './errors';
export { DEFAULT_RETRY, retryingFetch, type RetryPolicy } from './http';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './webhooks';
export type { components, paths } from './schema';
