import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { HEARTBEAT_TIMEOUT } from './definitions';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});
const state = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '30 seconds' } });

/** Runs the completion check of an upload on a worker (where ffprobe is). */
export async function verifyUploadWorkflow(uploadId: string): Promise<string> {
  try {
    return (await acts.verifyUpload(uploadId)).status;
  } catch (err) {
    // A verdict on the file already set the upload's status; anything else must not leave it `verifying`.
    await state.reopenUpload(uploadId);
    throw err; // an ActivityFailure: fails this workflow with the activity's error as its cause
  }
}
