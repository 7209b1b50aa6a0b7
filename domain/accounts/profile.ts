import type { Db } from '../db';
import { forgetWorkspacePrincipals } from './principal-cache';
import { ServiceError } from '../../core/errors';
import { PLANS } from '../../core/plans';

export const ACCOUNT_PURGE_DELAY_DAYS = 30;

export async function getProfile(db: Db, workspaceId: string, userId?: string) {
  const ws = await db.workspace.findUniqueOrThrow({
    where: { id: workspaceId },
    include: { users: { where: userId ? { id: userId } : { role: 'owner' }, take: 1 } },
  });
  const user = ws.users[0];
  return {
    display_name: user?.displayName ?? ws.name,
    email: user?.email ?? '',
    email_verified: Boolean(user?.emailVerifiedAt),
    workspace_id: ws.id,
    workspace_name: ws.name,
    plan: ws.plan,
    retention_days: ws.retentionDays,
    max_retention_days: PLANS[ws.plan].retentionDays,
  };
}

export async function updateProfile(
  db: Db,
  workspaceId: string,
  userId: string,
  input: { display_name?: string; retention_days?: number },
) {
  const ws = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  if (input.retention_days !== undefined && input.retention_days > PLANS[ws.plan].retentionDays) {
    throw new ServiceError('INVALID_REQUEST', 'retention_days', {
      message: `The ${PLANS[ws.plan].name} plan keeps transcripts for at most ${PLANS[ws.plan].retentionDays} days.`,
    });
  }
  await db.$transaction([
    ...(input.retention_days !== undefined
      ? [db.workspace.update({ where: { id: workspaceId }, data: { retentionDays: input.retention_days } })]
      : []),
    ...(input.display_name !== undefined ? [db.user.update({ where: { id: userId }, data: { displayName: input.display_name } })] : []),
  ]);
  return getProfile(db, workspaceId, userId);
}

/** Disables the workspace at once (every later request gets FORBIDDEN) and schedules the purge. */
export async function disableWorkspace(db: Db, workspaceId: string): Promise<{ purgeAfter: Date }> {
  const purgeAfter = new Date(Date.now() + ACCOUNT_PURGE_DELAY_DAYS * 86400_000);
  await db.$transaction([
    db.workspace.update({ where: { id: workspaceId }, data: { status: 'disabled', disabledAt: new Date(), purgeAfter } }),
    db.session.updateMany({ where: { workspaceId, revokedAt: null }, data: { revokedAt: new Date() } }),
  ]);
  forgetWorkspacePrincipals(db, workspaceId);
  return { purgeAfter };
}
