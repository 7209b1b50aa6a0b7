import os from 'node:os';
import { Client } from '@temporalio/client';
import { config } from '../domain/config';
import { connectTemporal } from '../integrations/temporal-connection';
import { POLLER_FRESH_SECONDS, queuePollers } from '../integrations/temporal-pollers';

// `tsx worker/health-check.ts`: the worker container's health check
// (docker-compose.yml). Healthy when a worker of this host (the SDK's default
// identity is `<pid>@<hostname>`) polled the job task queue for both workflow
// and activity tasks within the last POLLER_FRESH_SECONDS, as the Temporal
// server sees it: a process that is up but no longer polls is unhealthy.
async function main(): Promise<number> {
  const cfg = config();
  const connection = await connectTemporal(cfg.TEMPORAL_ADDRESS);
  try {
    const client = new Client({ connection: connection.connection, namespace: cfg.TEMPORAL_NAMESPACE });
    const pollers = await queuePollers(client, cfg.TEMPORAL_NAMESPACE, cfg.TEMPORAL_TASK_QUEUE);
    const mine = (ids: string[]) => ids.filter((id) => id.endsWith(`@${os.hostname()}`)).length;
    const [workflow, activity] = [mine(pollers.workflow), mine(pollers.activity)];
    console.log(
      `task queue ${cfg.TEMPORAL_TASK_QUEUE}: ${workflow} workflow and ${activity} activity poller(s) of ${os.hostname()} within ${POLLER_FRESH_SECONDS} s`,
    );
    return workflow > 0 && activity > 0 ? 0 : 1;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`health check failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
