-- Dynamically registered clients expire UNUSED_CLIENT_TTL_S (30 days) after
-- their registration or the end of their latest grant (domain/oauth/records.ts).
-- Clients stored before that rule get the same lifetime: 30 days from now, or
-- from the end of their latest grant if that is later.
UPDATE "oauth_records" AS c
SET "expires_at" = GREATEST(
  now(),
  COALESCE((SELECT max(g."expires_at") FROM "oauth_records" AS g WHERE g."model" = 'Grant' AND g."client_id" = c."client_id"), now())
) + interval '30 days'
WHERE c."model" = 'Client' AND c."expires_at" IS NULL;
