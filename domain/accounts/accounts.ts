import type { Db } from '../db';
import { ServiceError } from '../../core/errors';
import { openCreditAccount } from '../credits/ledger';
import { PLANS, type PlanId } from '../../core/plans';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from './secrets';
import { SCOPES, type Principal, type Scope } from './principal';
import { cachedPrincipal, forgetWorkspacePrincipals, PRINCIPAL_CACHE_MS, rememberPrincipal } from './principal-cache';

export const API_KEY_PREFIX = 'tsk_';
export const MAX_API_KEYS = 10;
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
const VERIFICATION_TTL_MS = 48 * 3600 * 1000;

export interface SignUpInput {
  email: string;
  password: string;
  display_name: string;
  workspace_name?: string;
}

/** Creates a trial workspace, its owner and the verification mail (written to the outbox). */
export async function signUp(db: Db, input: SignUpInput, opts: { baseUrl: string; plan?: PlanId }) {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const plan = opts.plan ?? 'trial';
  const token = randomToken();
  try {
    return await db.$transaction(async (tx) => {
      const workspace = await tx.workspace.create({
        data: { name: input.workspace_name ?? `${input.display_name}'s workspace`, plan, retentionDays: PLANS[plan].retentionDays },
      });
      const user = await tx.user.create({
        data: { workspaceId: workspace.id, email, displayName: input.display_name, passwordHash },
      });
      await openCreditAccount(tx, workspace.id, plan);
      await tx.emailVerification.create({
        data: { userId: user.id, tokenHash: sha256Hex(token), expiresAt: new Date(Date.now() + VERIFICATION_TTL_MS) },
      });
      await tx.outboxEmail.create({
        data: {
          to: email,
          subject: 'Verify your e-mail address',
          body: `Open ${opts.baseUrl}/app/verify-email?token=${token} or POST /app/verify-email {"token":"${token}"} to verify your address.`,
        },
      });
      return { workspace, user };
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') {
      throw new ServiceError('CONFLICT', 'email', { message: 'An account with this e-mail already exists.' });
    }
    throw err;
  }
}

/**
 * A sign-up as anyone may ask for it (POST /app/sign-up, the dashboard's
 * form): the answer must not tell whether the address has an account. A new
 * address gets its workspace and the verification mail; an address that has
 * one gets a mail telling its owner that someone tried to sign up with it,
 * and no account is changed. Both take the same work (the password is hashed
 * either way), and the caller answers both the same.
 */
export async function requestSignUp(db: Db, input: SignUpInput, opts: { baseUrl: string }): Promise<{ created: boolean }> {
  try {
    await signUp(db, input, opts);
    return { created: true };
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'CONFLICT') throw err;
    const email = input.email.trim().toLowerCase();
    await db.outboxEmail.create({
      data: {
        to: email,
        subject: 'Someone tried to create an account with your address',
        body:
          `Someone asked to create a Transcript Service account for ${email}, which already has one, so nothing was created or changed. ` +
          `If it was you, sign in at ${opts.baseUrl}/app/sign-in. If not, you need not do anything.`,
      },
    });
    return { created: false };
  }
}

export async function verifyEmail(db: Db, token: string): Promise<void> {
  const record = await db.emailVerification.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!record || record.usedAt || record.expiresAt < new Date()) {
    throw new ServiceError('INVALID_REQUEST', 'token', { message: 'The verification link is invalid or has expired.' });
  }
  await db.$transaction([
    db.emailVerification.update({ where: { id: record.id }, data: { usedAt: new Date() } }),
    db.user.update({ where: { id: record.userId }, data: { emailVerifiedAt: new Date() } }),
  ]);
}

/** Password sign-in. Returns the raw session and CSRF tokens; only their hashes are stored. */
export async function signIn(db: Db, email: string, password: string) {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() }, include: { workspace: true } });
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which e-mails exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new ServiceError('UNAUTHENTICATED', 'credentials', { message: 'E-mail or password is wrong.' });
  if (user.workspace.status !== 'active') throw new ServiceError('FORBIDDEN', 'workspace', { message: 'This workspace is disabled.' });
  const sessionToken = randomToken();
  const csrfToken = randomToken(24);
  const session = await db.session.create({
    data: {
      userId: user.id,
      workspaceId: user.workspaceId,
      tokenHash: sha256Hex(sessionToken),
      csrfTokenHash: sha256Hex(csrfToken),
      expiresAt: new Date(Date.now() + SESSION_TTL_MS),
    },
  });
  return { sessionToken, csrfToken, session, user };
}
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export async function signOut(db: Db, sessionId: string): Promise<void> {
  await db.session.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** The bound of the principal cache (domain/accounts/principal-cache.ts), under its older name. */
export const API_KEY_CACHE_MS = PRINCIPAL_CACHE_MS;

/**
 * Resolves a bearer API key to its principal, or null. At most one query on
 * the hot path of every API call (key, workspace and the owner's
 * verification), and none while the answer is younger than PRINCIPAL_CACHE_MS.
 */
export async function principalFromApiKey(db: Db, rawKey: string): Promise<Principal | null> {
  if (!rawKey.startsWith(API_KEY_PREFIX)) return null;
  const hash = sha256Hex(rawKey);
  const hit = cachedPrincipal(db, hash);
  if (hit) return hit;
  const principal = await lookUpApiKey(db, hash);
  rememberPrincipal(db, hash, principal);
  return principal;
}

async function lookUpApiKey(db: Db, hash: string): Promise<Principal | null> {
  const rows = await db.$queryRaw<
    { id: string; scopes: string[]; workspace_id: string; plan: PlanId; status: string; verified: boolean; stale: boolean }[]
  >`
    SELECT k.id::text, k.scopes, w.id::text AS workspace_id, w.plan::text AS plan, w.status::text AS status,
           EXISTS (SELECT 1 FROM users u WHERE u.workspace_id = w.id AND u.role = 'owner' AND u.email_verified_at IS NOT NULL) AS verified,
           (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale
    FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
    WHERE k.secret_hash = ${hash} AND k.revoked_at IS NULL`;
  const key = rows[0];
  if (!key) return null;
  if (key.status !== 'active') throw new ServiceError('FORBIDDEN', 'workspace', { message: 'This workspace is disabled.' });
  // last_used_at is written at most once a minute, so hot keys cost no write.
  if (key.stale) void touchApiKey(db, key.id).catch(() => undefined);
  return {
    kind: 'api_key',
    workspaceId: key.workspace_id,
    plan: key.plan,
    scopes: key.scopes as Scope[],
    emailVerified: key.verified,
    apiKeyId: key.id,
  };
}

/** Resolves a session cookie to its principal (with the CSRF hash to check on writes), or null. */
export async function principalFromSession(db: Db, rawToken: string): Promise<(Principal & { csrfTokenHash: string }) | null> {
  const session = await db.session.findUnique({ where: { tokenHash: sha256Hex(rawToken) }, include: { user: true, workspace: true } });
  if (!session || session.revokedAt || session.expiresAt < new Date()) return null;
  if (session.workspace.status !== 'active') throw new ServiceError('FORBIDDEN', 'workspace', { message: 'This workspace is disabled.' });
  return {
    kind: 'session',
    workspaceId: session.workspaceId,
    plan: session.workspace.plan,
    scopes: SCOPES,
    emailVerified: Boolean(session.user.emailVerifiedAt),
    userId: session.userId,
    sessionId: session.id,
    csrfTokenHash: session.csrfTokenHash,
  };
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function keyRecord(k: {
  id: string;
  name: string;
  displayPrefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): ApiKeyRecord {
  return {
    id: k.id,
    name: k.name,
    prefix: k.displayPrefix,
    scopes: k.scopes,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a key; the raw secret is returned here and never again. At most 10 active keys per workspace. */
export async function createApiKey(db: Db, workspaceId: string, input: { name: string; scopes: Scope[] }) {
  const secret = `${API_KEY_PREFIX}${randomToken(32)}`;
  return db.$transaction(async (tx) => {
    // Serialise key creation per workspace so two concurrent requests cannot both pass the limit.
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
    const active = await tx.apiKey.count({ where: { workspaceId, revokedAt: null } });
    if (active >= MAX_API_KEYS) {
      throw new ServiceError('CONFLICT', 'api_keys', {
        message: `A workspace can have at most ${MAX_API_KEYS} API keys; revoke one first.`,
      });
    }
    const key = await tx.apiKey.create({
      data: {
        workspaceId,
        name: input.name,
        scopes: [...new Set(input.scopes)],
        secretHash: sha256Hex(secret),
        displayPrefix: secret.slice(0, API_KEY_PREFIX.length + 6),
      },
    });
    return { ...keyRecord(key), secret };
  });
}

export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKeyRecord[]> {
  const keys = await db.apiKey.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return keys.map(keyRecord);
}

export async function revokeApiKey(db: Db, workspaceId: string, keyId: string): Promise<void> {
  const res = await db.apiKey.updateMany({ where: { id: keyId, workspaceId, revokedAt: null }, data: { revokedAt: new Date() } });
  forgetWorkspacePrincipals(db, workspaceId); // after the update: this instance refuses the key at once
  if (res.count === 0) {
    const exists = await db.apiKey.findFirst({ where: { id: keyId, workspaceId } });
    if (!exists) throw new ServiceError('NOT_FOUND', 'id');
  }
}

export async function touchApiKey(db: Db, keyId: string): Promise<void> {
  // Only write when the stored value is over a minute old, to keep hot reads cheap.
  await db.$executeRaw`UPDATE api_keys SET last_used_at = now() WHERE id = ${keyId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;
}
