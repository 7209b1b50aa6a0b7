import type { TextEmbedder } from '../../integrations/embeddings/e5';
import { vectorLiteral } from '../../integrations/embeddings/e5';
import { Prisma } from '../../prisma/generated/client';
import type { Db } from '../db';

/** Moments embedded per step: about a second of the engine's work, and one short transaction. */
export const EMBEDDING_BATCH = 32;

/**
 * The next moments without a vector of `embedder`'s model (none yet, or one of another model), embedded and
 * stored in one transaction: the rows are claimed with FOR UPDATE SKIP LOCKED, so embedding workers on several
 * hosts take different moments, and a worker killed mid-way commits nothing (the next step takes them again).
 * A moment removed meanwhile (its transcript deleted or indexed again) is simply not written.
 * Returns how many it embedded and how many are still waiting (counted up to 10,000).
 */
export async function embedPendingMoments(
  db: Db,
  embedder: TextEmbedder,
  opts: { limit?: number; workspaceId?: string } = {},
): Promise<{ embedded: number; pending: number }> {
  const limit = opts.limit ?? EMBEDDING_BATCH;
  // One workspace's moments only: a workspace to be searchable by meaning first (and a test's own moments).
  const scope = opts.workspaceId ? Prisma.sql`AND workspace_id = ${opts.workspaceId}::uuid` : Prisma.empty;
  const embedded = await db.$transaction(
    async (tx) => {
      let rows = await tx.$queryRaw<{ transcript_id: string; seq: number; text: string }[]>`
        SELECT transcript_id::text, seq, text FROM transcript_moments WHERE embedding IS NULL ${scope}
        ORDER BY transcript_id, seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0)
        rows = await tx.$queryRaw`
          SELECT transcript_id::text, seq, text FROM transcript_moments WHERE embedding_model <> ${embedder.model} ${scope}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return 0;
      const vectors = await embedder.embedPassages(rows.map((r) => r.text));
      await tx.$executeRaw`
        UPDATE transcript_moments m SET embedding = v.embedding::vector, embedding_model = ${embedder.model}
        FROM unnest(${rows.map((r) => r.transcript_id)}::uuid[], ${rows.map((r) => r.seq)}::int[], ${vectors.map(vectorLiteral)}::text[])
          AS v(transcript_id, seq, embedding)
        WHERE m.transcript_id = v.transcript_id AND m.seq = v.seq`;
      return rows.length;
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
  const [{ pending }] = await db.$queryRaw<[{ pending: number }]>`
    SELECT count(*)::int AS pending FROM (SELECT 1 FROM transcript_moments WHERE embedding IS NULL ${scope} LIMIT 10000) AS w`;
  return { embedded, pending };
}
