-- The moments' vectors move to a table of their own. Inline, 1.5 kB of vector made each moment's row five times
-- as large: keyword search, which reads the rows of every match, read five times the pages (a million moments:
-- 2.1 GB of table instead of 0.4 GB). transcript_moments keeps embedding_model, the follower's to-do marker: null
-- until the moment is embedded, and indexed, so finding the next batch, or the moments of an older model
-- (embedding_model < m OR > m: two index ranges), never scans the table.
CREATE TABLE "moment_embeddings" (
    "transcript_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "workspace_id" UUID NOT NULL,
    "embedding" vector(384),

    CONSTRAINT "moment_embeddings_pkey" PRIMARY KEY ("transcript_id","seq")
);

INSERT INTO "moment_embeddings" ("transcript_id", "seq", "workspace_id", "embedding")
SELECT "transcript_id", "seq", "workspace_id", "embedding" FROM "transcript_moments" WHERE "embedding" IS NOT NULL;

DROP INDEX "transcript_moments_embedding_idx";
DROP INDEX "transcript_moments_unembedded_idx";
ALTER TABLE "transcript_moments" DROP COLUMN "embedding";

-- A moment written again (its transcript indexed again) is a new row: its vector goes with the old one.
ALTER TABLE "moment_embeddings" ADD CONSTRAINT "moment_embeddings_transcript_id_seq_fkey" FOREIGN KEY ("transcript_id", "seq") REFERENCES "transcript_moments"("transcript_id", "seq") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "transcript_moments_embedding_model_idx" ON "transcript_moments"("embedding_model");

-- Nearest moments by cosine distance (HNSW, as in 20261129150000_moment_embeddings). Partial, which keeps it out of
-- Prisma's schema diff (Prisma has no HNSW index type), and the column nullable although every row has a vector: a
-- NOT NULL column's "IS NOT NULL" is dropped from a query by the planner, and the index's predicate then no longer
-- follows from the query, so the index went unused (a scan of every vector instead).
CREATE INDEX "moment_embeddings_embedding_idx" ON "moment_embeddings" USING hnsw ("embedding" vector_cosine_ops) WHERE "embedding" IS NOT NULL;
