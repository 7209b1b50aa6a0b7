import type { TextEmbedder } from '../../integrations/embeddings/e5';
import { vectorLiteral } from '../../integrations/embeddings/e5';
import { Prisma } from '../../prisma/generated/client';
import type { Db } from '../db';
import { EMBEDDING_BATCH } from '../../workflows/definitions';

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
      // Both through the embedding_model index: none yet, then another model's (`<>` as two ranges, which a
      // btree reads; `<>` itself would read the whole table at every look of an idle follower).
      let rows = await tx.$queryRaw<{ transcript_id: string; seq: number; workspace_id: string; text: string }[]>`
        SELECT transcript_id::text, seq, workspace_id::text, text FROM transcript_moments WHERE embedding_model IS NULL ${scope}
        LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0)
        rows = await tx.$queryRaw`
          SELECT transcript_id::text, seq, workspace_id::text, text FROM transcript_moments
          WHERE (embedding_model < ${embedder.model} OR embedding_model > ${embedder.model}) ${scope}
          LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return 0;
      const vectors = await embedder.embedPassages(rows.map((r) => r.text));
      const keys = Prisma.sql`${rows.map((r) => r.transcript_id)}::uuid[], ${rows.map((r) => r.seq)}::int[]`;
      await tx.$executeRaw`
        INSERT INTO moment_embeddings (transcript_id, seq, workspace_id, embedding)
        SELECT v.transcript_id, v.seq, v.workspace_id, v.embedding::vector
        FROM unnest(${keys}, ${rows.map((r) => r.workspace_id)}::uuid[], ${vectors.map(vectorLiteral)}::text[])
          AS v(transcript_id, seq, workspace_id, embedding)
        ON CONFLICT (transcript_id, seq) DO UPDATE SET embedding = excluded.embedding`;
      await tx.$executeRaw`
        UPDATE transcript_moments m SET embedding_model = ${embedder.model}
        FROM unnest(${keys}) AS v(transcript_id, seq) WHERE m.transcript_id = v.transcript_id AND m.seq = v.seq`;
      return rows.length;
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
  const [{ pending }] = await db.$queryRaw<[{ pending: number }]>`
    SELECT count(*)::int AS pending FROM (SELECT 1 FROM transcript_moments WHERE embedding_model IS NULL ${scope} LIMIT 10000) AS w`;
  return { embedded, pending };
}
