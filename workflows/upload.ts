import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/** Runs the completion check of an upload on a worker (where ffprobe is). */
export async function verifyUploadWorkflow(uploadId: string): Promise<string> {
  return (await acts.verifyUpload(uploadId)).status;
}
