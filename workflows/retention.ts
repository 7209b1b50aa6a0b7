import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumInterval: '1 minute' } });

/** Started by DELETE /v1/transcripts/{id}: the purge survives API and worker restarts. */
export async function purgeTranscriptWorkflow(transcriptId: string): Promise<void> {
  await acts.purgeTranscript(transcriptId);
}

/** Run by the `transcript-retention` schedule: purges expired transcripts and discoveries until none are left. */
export async function retentionSweepWorkflow(): Promise<number> {
  let total = 0;
  for (let i = 0; i < 100; i++) {
    const n = await acts.purgeExpiredTranscripts(500);
    total += n;
    if (n < 500) break;
  }
  // Discoveries are kept 24 hours; reads hide expired ones already.
  for (let i = 0; i < 100; i++) {
    const n = await acts.purgeExpiredDiscoveries(500);
    total += n;
    if (n < 500) break;
  }
  // Real-time streams whose API instance died are settled here too (and at their workspace's next stream start).
  if (patched('settle-abandoned-listen-sessions')) await acts.settleAbandonedListenSessions();
  // Kept stream audio past its retention, or deleted, leaves the object store.
  if (patched('purge-kept-listen-audio'))
    for (let i = 0; i < 100; i++) {
      const n = await acts.purgeExpiredKeptAudio(100);
      total += n;
      if (n < 100) break;
    }
  return total;
}
