import type { Db } from '../domain/db';
import { recordEvent } from '../domain/webhooks/events';

export function createBatchActivities(db: Db) {
  return {
    /** Marks the batch complete and records its one batch.completed event (idempotent). */
    async completeBatch(batchId: string): Promise<{ eventId: string | null }> {
      return db.$transaction(async (tx) => {
        const batch = await tx.batch.findUniqueOrThrow({ where: { id: batchId } });
        if (!batch.completedAt) await tx.batch.update({ where: { id: batchId }, data: { completedAt: new Date() } });
        const eventId = await recordEvent(tx, {
          workspaceId: batch.workspaceId,
          endpointId: batch.webhookEndpointId,
          type: 'batch.completed',
          subjectKey: `batch:${batchId}`,
          jobId: null,
          batchId,
          resultId: null,
          metadata: batch.metadata as Record<string, string>,
          error: null,
        });
        return { eventId };
      });
    },
  };
}
