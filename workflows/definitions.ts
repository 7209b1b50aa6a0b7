// Names shared by the API (client side) and the worker: task queues, workflow
// ids, signals, updates and queries. No Node built-ins here: workflow code imports it.

export const TASK_QUEUE = 'transcripts';

export const workflowIds = {
  job: (jobId: string) => `job-${jobId}`,
  batch: (batchId: string) => `batch-${batchId}`,
  webhook: (eventId: string) => `webhook-${eventId}`,
  transcriptPurge: (transcriptId: string) => `purge-transcript-${transcriptId}`,
};
