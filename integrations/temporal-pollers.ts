import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';

// Who polls a task queue, as the Temporal server sees it: the only honest
// answer to "is anything running the jobs right now". A worker process that
// died stays in the server's list until its entry ages out, so a poller
// counts only when it polled within the freshness window; an idle live worker
// polls again at least every minute (a long poll lasts at most about 60 s).

/** A poller counts as live when it polled within this many seconds. */
export const POLLER_FRESH_SECONDS = 75;

export interface QueuePollers {
  /** Distinct poller identities (`pid@host` by default) seen within the window, by task type. */
  workflow: string[];
  activity: string[];
}

const TYPES = {
  workflow: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  activity: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
} as const;

export async function queuePollers(
  client: Client,
  namespace: string,
  taskQueue: string,
  opts: { freshSeconds?: number; now?: number } = {},
): Promise<QueuePollers> {
  const since = (opts.now ?? Date.now()) - (opts.freshSeconds ?? POLLER_FRESH_SECONDS) * 1000;
  const read = async (type: (typeof TYPES)[keyof typeof TYPES]) => {
    const res = await client.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: type,
    });
    const live = (res.pollers ?? []).filter((p) => {
      const t = p.lastAccessTime;
      const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
      return ms >= since;
    });
    return [...new Set(live.map((p) => p.identity ?? ''))].sort();
  };
  const [workflow, activity] = await Promise.all([read(TYPES.workflow), read(TYPES.activity)]);
  return { workflow, activity };
}
