import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, sleep, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_WEBHOOK_DELAYS_MS, workflowIds, type WebhookDeliveryInput } from './definitions';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // Infrastructure trouble (database) is retried here; an endpoint's failure is an outcome, not an error.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One workflow per event: at-least-once delivery with growing delays over
 * about a day (DEFAULT_WEBHOOK_DELAYS_MS), the same event_id every time; stops
 * at the first 2xx or when the endpoint is disabled.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<string> {
  const delays = input.delaysMs ?? DEFAULT_WEBHOOK_DELAYS_MS;
  for (let attempt = 1; ; attempt++) {
    const outcome = await acts.deliverWebhookAttempt(input.eventId, attempt, input.resend ?? false);
    if (outcome !== 'failed') return outcome;
    if (attempt > delays.length) return 'gave_up';
    await sleep(delays[attempt - 1]!);
  }
}

/** Starts the delivery of an event as its own workflow, which outlives the one that caused it. */
export async function startWebhookDelivery(eventId: string, delaysMs?: number[]): Promise<void> {
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: workflowIds.webhook(eventId),
      args: [{ eventId, delaysMs }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
