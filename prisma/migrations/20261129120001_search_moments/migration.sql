-- Search (GET /v1/search): moments of published transcripts, with their words as text search reads them.
-- Written from Prisma's diff, with the extensions and text search configurations it cannot write put first.

-- Accents folded (unaccent), and trigram matching for languages written without spaces (pg_trgm): both ship
-- with PostgreSQL's contrib, in the embedded binaries and the official image alike.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One configuration per language with a stemmer, each folding accents before stemming, so "café" finds "cafe"
-- and the marks ts_headline puts land on the words the index matched. search_simple: no stemming (any other
-- language written with spaces).
CREATE TEXT SEARCH CONFIGURATION search_en (COPY = english);
ALTER TEXT SEARCH CONFIGURATION search_en ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
CREATE TEXT SEARCH CONFIGURATION search_es (COPY = spanish);
ALTER TEXT SEARCH CONFIGURATION search_es ALTER MAPPING FOR hword, hword_part, word WITH unaccent, spanish_stem;
CREATE TEXT SEARCH CONFIGURATION search_fr (COPY = french);
ALTER TEXT SEARCH CONFIGURATION search_fr ALTER MAPPING FOR hword, hword_part, word WITH unaccent, french_stem;
CREATE TEXT SEARCH CONFIGURATION search_de (COPY = german);
ALTER TEXT SEARCH CONFIGURATION search_de ALTER MAPPING FOR hword, hword_part, word WITH unaccent, german_stem;
CREATE TEXT SEARCH CONFIGURATION search_pt (COPY = portuguese);
ALTER TEXT SEARCH CONFIGURATION search_pt ALTER MAPPING FOR hword, hword_part, word WITH unaccent, portuguese_stem;
CREATE TEXT SEARCH CONFIGURATION search_it (COPY = italian);
ALTER TEXT SEARCH CONFIGURATION search_it ALTER MAPPING FOR hword, hword_part, word WITH unaccent, italian_stem;
CREATE TEXT SEARCH CONFIGURATION search_simple (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION search_simple ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;

-- CreateTable
CREATE TABLE "transcript_moments" (
    "transcript_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "workspace_id" UUID NOT NULL,
    "start" DOUBLE PRECISION NOT NULL,
    "end" DOUBLE PRECISION NOT NULL,
    "text" TEXT NOT NULL,
    "speaker" TEXT,
    "language" TEXT,
    "search_config" TEXT NOT NULL,
    "words" tsvector NOT NULL,

    CONSTRAINT "transcript_moments_pkey" PRIMARY KEY ("transcript_id","seq")
);

-- CreateIndex
CREATE INDEX "transcript_moments_workspace_id_idx" ON "transcript_moments"("workspace_id");

-- CreateIndex
CREATE INDEX "transcript_moments_words_idx" ON "transcript_moments" USING GIN ("words");

-- Trigrams of the moments of languages written without spaces only (a partial index Prisma's schema cannot
-- state): the words of the others are in the GIN index above, and a trigram index of every moment would be
-- the largest part of the index for a rare use.
CREATE INDEX "transcript_moments_trigram_idx" ON "transcript_moments" USING GIN ("text" gin_trgm_ops) WHERE "search_config" = 'search_trigram';

-- AddForeignKey
ALTER TABLE "transcript_moments" ADD CONSTRAINT "transcript_moments_transcript_id_fkey" FOREIGN KEY ("transcript_id") REFERENCES "transcripts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
