// What test and benchmark workers bundle: every workflow of the service, and the probes.
export * from '../../workflows';
export { emptyWorkflow, probeWorkflow } from './probe-workflows';
