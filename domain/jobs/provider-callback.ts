import type { Client } from '@temporalio/client';
import type { AssemblyAiRecognizer } from '../../integrations/recognizers/cloud';
import { providerCallbackSignal } from '../../workflows/definitions';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';

/**
 * The recognition provider's callback: the shared secret header is checked in
 * constant time, then the job's workflow is signalled to fetch the result. An
 * unknown transcript id is acknowledged (the provider must not retry forever).
 */
export async function acceptProviderCallback(
  db: Db,
  temporal: Client,
  cloud: AssemblyAiRecognizer | null,
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
) {
  if (!cloud) throw new ServiceError('NOT_FOUND', 'provider', { message: 'No cloud recognizer is configured.' });
  const callback = cloud.verifyCallback(headers, body);
  const job = await jobOfProviderId(db, callback.providerJobId);
  if (!job) return { accepted: false };
  await temporal.workflow.getHandle(job.workflowId).signal(providerCallbackSignal, { status: callback.status });
  return { accepted: true };
}

/**
 * The provider can call back before the submitting activity has stored its id
 * on the job (an immediate rejection arrives within milliseconds of the create
 * call's answer): an unknown id is looked up again for a few seconds before it
 * counts as unknown, so that callback is not lost to the 60 s poll.
 */
async function jobOfProviderId(db: Db, providerJobId: string, waitMs = CALLBACK_ID_WAIT_MS) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const job = await db.job.findUnique({ where: { providerJobId }, select: { workflowId: true } });
    if (job || Date.now() >= deadline) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** How long an unknown transcript id is looked for before the callback is acknowledged as unknown. */
export const CALLBACK_ID_WAIT_MS = 5_000;
