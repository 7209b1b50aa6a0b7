import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface ActivityRetry {
  /** The activity's type, as scheduled. */
  activity: string;
  /** Why the attempt before it failed. */
  lastFailure: temporal.api.failure.v1.IFailure | null;
}

/**
 * The activities of a workflow's history that needed more than one attempt. Temporal retries an activity on the
 * server and writes only its last attempt's start, with the failure of the attempt before it.
 */
export function activityRetries(events: HistoryEvent[] | null | undefined): ActivityRetry[] {
  const scheduled = new Map<string, string>();
  const retries: ActivityRetry[] = [];
  for (const e of events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '?');
    const started = e.activityTaskStartedEventAttributes;
    if (started && (started.attempt ?? 1) > 1)
      retries.push({
        activity: scheduled.get(String(started.scheduledEventId)) ?? '?',
        lastFailure: started.lastFailure ?? null,
      });
  }
  return retries;
}
