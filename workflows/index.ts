// Every workflow the worker runs. Deterministic code only: activities do the I/O.
export { probeWorkflow, emptyWorkflow } from './probe';
