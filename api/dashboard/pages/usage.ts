import { PLANS } from '../../../core/plans';
import { ServiceError } from '../../../core/errors';
import { dailyCreditsSpent } from '../../../domain/credits/daily-spend';
import { getUsage } from '../../../domain/credits/usage';
import { Uuid } from '../../../domain/schemas/common';
import { z } from '../../../domain/schemas/zod';
import { quoteUploadTranscription } from '../../../domain/uploads/uploads';
import { parseInput } from '../../http/parse-input';
import { playgroundHeaders } from '../headers';
import { redirect, send, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession, SignInRequired, type PageSession } from '../session';
import { usageBody } from '../views-account';
import { playgroundBody } from '../views-playground';

const QuoteQuery = z.strictObject({ upload_id: Uuid });

/** The usage page and the playground (a new transcript from the browser) with its price quote. */
export function mountUsagePages(pages: Pages): void {
  const { deps, router } = pages;
  router.get('/dashboard', (_req, res) => redirect(res, '/dashboard/usage'));
  pages.get('/dashboard/usage', async (req, res) => {
    const s = await pageSession(req, deps);
    const [usage, spend, email] = await Promise.all([
      getUsage(deps, s.principal.workspaceId),
      dailyCreditsSpent(deps.db, s.principal.workspaceId, 30),
      pages.emailOf(s),
    ]);
    send(res, 200, page({ title: 'Usage', session: pages.shell(s, 'usage', email), body: usageBody(usage, spend) }));
  });

  pages.get('/dashboard/new', async (req, res) => {
    const s = await pageSession(req, deps);
    const [usage, email] = await Promise.all([getUsage(deps, s.principal.workspaceId), pages.emailOf(s)]);
    const body = playgroundBody({
      creditsRemaining: usage.credits_remaining,
      asrEnabled: deps.config.ASR_ENABLED,
      aiAllowed: deps.config.ASR_ENABLED && PLANS[s.principal.plan].paid,
      listenEnabled: deps.config.ASR_ENABLED && Boolean(deps.config.RECOGNIZER_STREAM_URL),
    });
    res
      .status(200)
      .set(playgroundHeaders(deps.objectStore.uploadOrigin, new URL(deps.baseUrl).origin))
      .type('html')
      .send(page({ title: 'New transcript', session: pages.shell(s, 'new', email), body, scripts: ['playground.js'] }));
  });
  // The price of transcribing a ready upload, for the playground's quote (JSON: the page's script reads it).
  router.get('/dashboard/new/quote', async (req, res) => {
    let s: PageSession;
    try {
      s = await pageSession(req, deps);
    } catch (err) {
      if (err instanceof SignInRequired) throw new ServiceError('UNAUTHENTICATED', 'session', { message: 'Sign in again.' });
      throw err;
    }
    const { upload_id } = parseInput(QuoteQuery, req.query, 'query');
    res.set('Cache-Control', 'no-store').json(await quoteUploadTranscription(deps.db, s.principal.workspaceId, upload_id));
  });
}
