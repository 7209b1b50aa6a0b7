import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/**
 * A Temporal client connection that can be closed while calls are still
 * retrying. The SDK's retry interceptor schedules each retry on a timer; a
 * timer that fires after `Connection.close()` creates its call on the shut
 * channel, which throws "Channel has been shut down" from the timer: an
 * uncaught exception in whatever process is shutting down. Closing the
 * channel also fails every call still queued for a connection with
 * UNAVAILABLE, which the interceptor would schedule again.
 *
 * So `close()` first stops retries (a failed call then fails to its caller),
 * waits until every retry timer already scheduled has fired (each starts its
 * call on the still-open channel), and only then closes. Calls in progress
 * run to completion; grpc-js does not cancel them on close.
 */
export interface TemporalConnection {
  connection: Connection;
  close(): Promise<void>;
}

/**
 * How long after the last scheduled retry's due time close() waits: timers fire
 * in due order, so that retry has run by then; the slack covers the
 * millisecond rounding between Date.now() here and the timer's own clock.
 */
const RETRY_TIMER_SLACK_MS = 20;

export async function connectTemporal(address: string): Promise<TemporalConnection> {
  const retry = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryAt = 0;
  const connection = await Connection.connect({
    address,
    interceptors: [
      makeGrpcRetryInterceptor({
        retryableDecider: (attempt, status) => !closing && retry.retryableDecider(attempt, status),
        delayFunction: (attempt, status) => {
          const delay = retry.delayFunction(attempt, status);
          lastRetryAt = Math.max(lastRetryAt, Date.now() + delay);
          return delay;
        },
      }),
    ],
  });
  return {
    connection,
    async close() {
      closing = true;
      const wait = lastRetryAt - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + RETRY_TIMER_SLACK_MS));
      await connection.close();
    },
  };
}
