-- Search by meaning: each moment's sentence embedding (pgvector), with the model that made it, so a change of
-- model writes the vectors again (the embedding follower, workflows/search.ts). Null until the follower has
-- embedded the moment: keyword search finds it meanwhile.
-- pgvector is not in PostgreSQL's contrib: stack/search-setup.sh installs it into the embedded server, and the
-- docker-compose stack runs an image that has it (pgvector/pgvector).
CREATE EXTENSION IF NOT EXISTS vector;

ALTER TABLE "transcript_moments" ADD COLUMN "embedding" vector(384), ADD COLUMN "embedding_model" TEXT;

-- Nearest moments by cosine distance (the vectors are normalised). HNSW rather than IVFFlat: no training step,
-- so it is right from the first row, and it keeps its recall as moments are added. Searched with iterative scans
-- (domain/search/query.ts), so the workspace filter does not empty the page. Partial (the moments that have a
-- vector), which is also what keeps it out of Prisma's schema diff: Prisma has no HNSW index type.
CREATE INDEX "transcript_moments_embedding_idx" ON "transcript_moments" USING hnsw ("embedding" vector_cosine_ops) WHERE "embedding" IS NOT NULL;

-- The moments the follower has still to embed: a partial index that holds only them, so finding the next batch
-- costs nothing once all are done.
CREATE INDEX "transcript_moments_unembedded_idx" ON "transcript_moments" ("transcript_id", "seq") WHERE "embedding" IS NULL;
