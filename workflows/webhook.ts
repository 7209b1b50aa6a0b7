import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, proxyLocalActivities, sleep, startChild } from '@temporalio/workflow';
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
 * at the first 2xx or when the endpoint is disabled. Attempt n > 1 waits
 * delays[n - 2] first.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<string> {
  for (let attempt = input.startAttempt ?? 1; ; attempt++) {
    if (attempt > 1) {
      const delay = DEFAULT_WEBHOOK_DELAYS_MS[attempt - 2];
      if (delay === undefined) return 'gave_up';
      await sleep(delay);
    }
    const outcome = await acts.deliverWebhookAttempt(input.eventId, attempt, input.resend ?? false);
    if (outcome !== 'failed') return outcome;
  }
}

const firstAttempt = proxyLocalActivities<Activities>({ startToCloseTimeout: '8 seconds', retry: { maximumAttempts: 2 } });

/**
 * Delivers an event that the calling workflow's last step recorded: the first
 * attempt right away as a local activity of the caller (no extra round trips
 * through the server, so subscribers hear within milliseconds), and only when
 * it fails, the retry schedule as the event's own durable workflow.
 */
export async function deliverEvent(eventId: string): Promise<void> {
  let outcome: string;
  try {
    outcome = await firstAttempt.deliverWebhookAttempt(eventId, 1, false);
  } catch {
    return startWebhookDelivery(eventId, 1);
  }
  if (outcome === 'failed') await startWebhookDelivery(eventId, 2);
}

/** Starts the delivery of an event as its own workflow, which outlives the one that caused it. */
export async function startWebhookDelivery(eventId: string, startAttempt = 1): Promise<void> {
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: workflowIds.webhook(eventId),
      args: [{ eventId, startAttempt }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
