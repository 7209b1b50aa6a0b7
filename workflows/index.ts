// Every workflow the worker runs. Deterministic code only: activities do the I/O.
export { jobWorkflow } from './job';
export { batchWorkflow } from './batch';
export { webhookDeliveryWorkflow } from './webhook';
export { verifyUploadWorkflow } from './upload';
export { purgeTranscriptWorkflow, retentionSweepWorkflow } from './retention';
export { discoveryWorkflow } from './discovery';
export { monthlyGrantsWorkflow } from './billing';
export { searchEmbeddingFollowerWorkflow, searchIndexBackfillWorkflow } from './search';
export { liveStreamWorkflow } from './live';
