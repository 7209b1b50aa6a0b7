import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  DEFAULT_WEBHOOK_DELAYS_MS,
  searchAttributes,
  webhookStartMetadata,
  workflowIds,
  type WebhookDeliveryInput,
  type WebhookFacts,
} from './definitions';

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
      if (delay === undefined) {
        setCurrentDetails(`Gave up: ${attempt - 1} attempts failed.`);
        return 'gave_up';
      }
      const at = new Date(Date.now() + delay).toISOString();
      setCurrentDetails(`Attempt ${attempt - 1} failed (no 2xx within 5 s); attempt ${attempt} at ${at}.`);
      upsertSearchAttributes([{ key: searchAttributes.deliveryAttempt, value: attempt }]);
      await sleep(delay);
    }
    setCurrentDetails(`Delivering attempt ${attempt}.`);
    const outcome = await acts.deliverWebhookAttempt(input.eventId, attempt, input.resend ?? false);
    if (outcome !== 'failed') {
      setCurrentDetails(`Done at attempt ${attempt}: ${outcome}.`);
      return outcome;
    }
  }
}

const firstAttempt = proxyLocalActivities<Activities>({ startToCloseTimeout: '8 seconds', retry: { maximumAttempts: 2 } });

/**
 * Delivers an event that the calling workflow's last step recorded: the first
 * attempt right away as a local activity of the caller (no extra round trips
 * through the server, so subscribers hear within milliseconds), and only when
 * it fails, the retry schedule as the event's own durable workflow.
 */
export async function deliverEvent(eventId: string, facts: WebhookFacts): Promise<void> {
  let outcome: string;
  try {
    outcome = await firstAttempt.deliverWebhookAttempt.executeWithOptions({ summary: `${facts.type} event ${eventId}, attempt 1` }, [
      eventId,
      1,
      false,
    ]);
  } catch {
    return startWebhookDelivery(eventId, facts, 1);
  }
  if (outcome === 'failed') await startWebhookDelivery(eventId, facts, 2);
}

/** Starts the delivery of an event as its own workflow, which outlives the one that caused it. */
export async function startWebhookDelivery(eventId: string, facts: WebhookFacts, startAttempt = 1): Promise<void> {
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: workflowIds.webhook(eventId),
      args: [{ eventId, startAttempt }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...webhookStartMetadata(facts, { startAttempt }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
