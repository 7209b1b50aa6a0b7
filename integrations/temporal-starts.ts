import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';

// The two things the service asks of Temporal's start API and of its operator API, kept here so the domain
// (domain/workflow-starts.ts) holds only when and what to start: a start that is exactly-once by workflow id,
// and the namespace's registered search attributes, whose stored encoding is the SDK's internal helper.

export type StartOutcome = 'started' | 'already_started';

export type WorkflowStart = Omit<WorkflowStartOptions, 'taskQueue' | 'workflowIdReusePolicy'> & {
  /** A closed workflow of the same id may be started again (the default refuses any second start of an id). */
  restartAfterClose?: boolean;
};

/**
 * Starts a workflow whose id is its work's: a second start of the same id is refused (REJECT_DUPLICATE, or
 * ALLOW_DUPLICATE with `restartAfterClose`, which still refuses while one runs) and answered `already_started`,
 * so racing starters and the API make one workflow.
 */
export async function startWorkflowOnce(
  temporal: Client,
  taskQueue: string,
  workflowType: string,
  { restartAfterClose, ...options }: WorkflowStart,
): Promise<StartOutcome> {
  try {
    await temporal.workflow.start(workflowType, {
      taskQueue,
      workflowIdReusePolicy: restartAfterClose ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...options,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

/**
 * The keys the namespace lacks or has with another type, as `Name=Type`; null when the server does not say
 * (no operator access).
 */
export async function unregisteredSearchAttributes(
  temporal: Client,
  namespace: string,
  keys: readonly { name: string; type: SearchAttributeType }[],
): Promise<string[] | null> {
  let registered: Record<string, unknown>;
  try {
    registered = (await temporal.connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch {
    return null;
  }
  return keys.filter((k) => registered[k.name] !== encodeSearchAttributeIndexedValueType(k.type)).map((k) => `${k.name}=${k.type}`);
}
