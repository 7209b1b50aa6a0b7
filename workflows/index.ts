// Every workflow the worker runs. Deterministic code only: activities do the I/O.
export { probeWorkflow, emptyWorkflow } from './probe';
export { jobWorkflow } from './job';
export { purgeTranscriptWorkflow, retentionSweepWorkflow } from './retention';
