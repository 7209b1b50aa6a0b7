import type { Db } from '../db';
import { sha256Hex } from '../accounts/secrets';

// Storage of the OAuth authorization server (api/oauth/provider.ts runs
// oidc-provider): one table, oauth_records, for every model the library keeps
// (grants, authorization codes, access and refresh tokens, registered clients,
// its browser sessions and interactions). A record's id is, for codes and
// tokens, the bearer value itself, so rows are keyed by its SHA-256 and the
// payload is stored without it (`jti`); a leaked table yields no usable token.

/** The adapter interface oidc-provider calls (its `Adapter`), one instance per model. */
export interface OAuthAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * A dynamically registered client (open to anyone, POST /oauth/register) lives
 * this long after its registration, or after the end of its latest grant:
 * unused registrations go away with the expired rows, and a client in use
 * always outlives its tokens (they end with their grant). A client that comes
 * back after that registers again, as the MCP authorization spec has clients
 * do on invalid_client.
 */
export const UNUSED_CLIENT_TTL_S = 30 * 24 * 3600;

/** Every `PURGE_EVERY`-th write also removes rows expired for more than a day (the table never grows without bound). */
const PURGE_EVERY = 200;
let writes = 0;

export function oauthAdapterFactory(db: Db): (model: string) => OAuthAdapter {
  return (model: string) => new PrismaOAuthAdapter(db, model);
}

class PrismaOAuthAdapter implements OAuthAdapter {
  constructor(
    private readonly db: Db,
    private readonly model: string,
  ) {}

  private key(id: string) {
    return { model_keyHash: { model: this.model, keyHash: sha256Hex(id) } };
  }

  async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
    const { jti: _jti, ...rest } = payload;
    const clientId = (payload.clientId ?? payload.client_id) as string | undefined;
    const data = {
      grantId: this.model === 'Grant' ? id : ((payload.grantId as string | undefined) ?? null),
      uid: (payload.uid as string | undefined) ?? null,
      accountId: (payload.accountId as string | undefined) ?? null,
      clientId: clientId ?? null,
      payload: rest as object,
      expiresAt:
        typeof expiresIn === 'number'
          ? new Date(Date.now() + expiresIn * 1000)
          : this.model === 'Client'
            ? new Date(Date.now() + UNUSED_CLIENT_TTL_S * 1000)
            : null,
      consumedAt: typeof payload.consumed === 'number' ? new Date(payload.consumed * 1000) : null,
    };
    await this.db.oAuthRecord.upsert({
      where: this.key(id),
      create: { model: this.model, keyHash: sha256Hex(id), ...data },
      // Re-saved client metadata keeps the client's lifetime (grants extend it).
      update: this.model === 'Client' ? { ...data, expiresAt: undefined } : data,
    });
    if (this.model === 'Grant' && clientId) await extendClientLifetime(this.db, clientId, data.expiresAt ?? new Date());
    if (++writes % PURGE_EVERY === 0) void purgeExpired(this.db).catch(() => undefined);
  }

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.db.oAuthRecord.findUnique({ where: this.key(id) });
    return row ? this.toPayload(id, row) : undefined;
  }

  private toPayload(id: string, row: { payload: unknown; expiresAt: Date | null; consumedAt: Date | null }) {
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return undefined;
    const payload = { ...(row.payload as Record<string, unknown>) };
    if (this.model !== 'Client') payload.jti = id;
    if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
    return payload;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // the device flow is not enabled
  }

  async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    // Only sessions are looked up by uid, to read who is signed in: their id (the cookie value) is not stored, so none is returned.
    const row = await this.db.oAuthRecord.findFirst({ where: { model: this.model, uid } });
    const payload = row ? this.toPayload('', row) : undefined;
    if (payload) delete payload.jti;
    return payload;
  }

  async consume(id: string): Promise<void> {
    await this.db.oAuthRecord.updateMany({ where: { model: this.model, keyHash: sha256Hex(id) }, data: { consumedAt: new Date() } });
  }

  async destroy(id: string): Promise<void> {
    await this.db.oAuthRecord.deleteMany({ where: { model: this.model, keyHash: sha256Hex(id) } });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await revokeGrant(this.db, grantId);
  }
}

/** A client with a grant lives UNUSED_CLIENT_TTL_S past the grant's end (never shortened). */
async function extendClientLifetime(db: Db, clientId: string, grantEnds: Date): Promise<void> {
  const until = new Date(grantEnds.getTime() + UNUSED_CLIENT_TTL_S * 1000);
  await db.$executeRaw`UPDATE oauth_records SET expires_at = GREATEST(expires_at, ${until})
    WHERE model = 'Client' AND key_hash = ${sha256Hex(clientId)}`;
}

/** Removes a grant and every code and token issued under it. */
export async function revokeGrant(db: Db, grantId: string): Promise<number> {
  const res = await db.oAuthRecord.deleteMany({ where: { grantId, model: { in: ['Grant', ...GRANTABLE] } } });
  return res.count;
}

export async function purgeExpired(db: Db): Promise<void> {
  await db.$executeRaw`DELETE FROM oauth_records WHERE expires_at < now() - interval '1 day'`;
}
