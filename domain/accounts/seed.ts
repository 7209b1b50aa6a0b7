import type { Db } from '../db';
import { createApiKey, signUp } from './accounts';
import { SCOPES } from './principal';
import { changePlan } from './plan';

export const DEV_EMAIL = 'dev@example.test';
export const DEV_PASSWORD = 'dev-password-change-me';

/**
 * The development workspace: Pro plan (every feature can be tried), verified
 * owner, and a fresh all-scope API key each start (keys are shown once, so a
 * new one is made; older dev keys beyond the limit are revoked).
 */
export async function seedDevWorkspace(db: Db, baseUrl: string) {
  let user = await db.user.findUnique({ where: { email: DEV_EMAIL } });
  if (!user) {
    const created = await signUp(
      db,
      { email: DEV_EMAIL, password: DEV_PASSWORD, display_name: 'Developer', workspace_name: 'Development' },
      { baseUrl },
    );
    user = created.user;
    await db.user.update({ where: { id: user.id }, data: { emailVerifiedAt: new Date() } });
    await changePlan(db, user.workspaceId, 'pro');
  }
  const active = await db.apiKey.findMany({
    where: { workspaceId: user.workspaceId, revokedAt: null, name: 'dev' },
    orderBy: { createdAt: 'asc' },
  });
  if (active.length >= 5) {
    await db.apiKey.updateMany({
      where: { id: { in: active.slice(0, active.length - 4).map((k) => k.id) } },
      data: { revokedAt: new Date() },
    });
  }
  const key = await createApiKey(db, user.workspaceId, { name: 'dev', scopes: [...SCOPES] });
  return { email: DEV_EMAIL, password: DEV_PASSWORD, apiKey: key.secret, workspaceId: user.workspaceId };
}
