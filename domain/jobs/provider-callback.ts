import type { Client } from '@temporalio/client';
import type { AssemblyAiRecognizer } from '../../integrations/recognizers/cloud';
import { providerCallbackSignal } from '../../workflows/definitions';
import type { Db } from '../db';
import { ServiceError } from '../errors';

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
  const job = await db.job.findUnique({ where: { providerJobId: callback.providerJobId }, select: { workflowId: true } });
  if (!job) return { accepted: false };
  await temporal.workflow.getHandle(job.workflowId).signal(providerCallbackSignal, { status: callback.status });
  return { accepted: true };
}
