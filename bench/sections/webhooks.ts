import { randomUUID } from 'node:crypto';
import { type BenchContext, type BenchSection, ms, pct, ratio, timed, videoId } from '../harness';

export const webhooksSection: BenchSection = {
  name: 'webhooks',
  async run(ctx: BenchContext) {
    const { api, base, submitters, out, bearer } = ctx;
    // --- issue 5: job completion → webhook received, and a batch of 50 vs 50 single jobs
    const { startWebhookReceiver } = await import('../../test/support/webhook-receiver');
    const { signInSession } = await import('../../test/support/harness');
    const { testTls } = await import('../../test/support/tls');
    const { webhookHeaders } = await import('../../domain/webhooks/signing');
    const receiver = await startWebhookReceiver();
    const hookWs = submitters[32]!;
    const session = await signInSession(api.app, hookWs.email, hookWs.password);
    const supertest = (await import('supertest')).default;
    const ep = await supertest(api.app)
      .post('/v1/webhook-endpoints')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ url: receiver.url });
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    const https = await import('node:https');
    const rawPost: number[] = [];
    for (let i = 0; i < 40; i++) {
      const body = JSON.stringify({ event_id: randomUUID(), type: 'job.succeeded' });
      const id = JSON.parse(body).event_id;
      const ts = Math.floor(Date.now() / 1000);
      const t0 = performance.timeOrigin + performance.now();
      await new Promise<void>((resolve, reject) => {
        const req = https.request(
          receiver.url,
          { method: 'POST', ca: testTls().cert, headers: webhookHeaders(ep.body.secret, id, ts, body) },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const got = await receiver.waitFor((all) => all.some((r) => r.event_id === id));
      rawPost.push(got.find((r) => r.event_id === id)!.received_at - t0);
    }
    const hookLatency: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { ...bearer(hookWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({
          source: { url: `https://www.youtube.com/watch?v=${videoId()}` },
          mode: 'captions_only',
          webhook_endpoint_id: ep.body.id,
        }),
      });
      const job = (await res.json()) as { id: string };
      const all = await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === job.id), 20000);
      const hit = all.find((r) => r.body?.job_id === job.id)!;
      const row = await api.deps.db.job.findUniqueOrThrow({ where: { id: job.id }, select: { finishedAt: true } });
      hookLatency.push(hit.received_at - row.finishedAt!.getTime());
    }
    out(`## Job completion → webhook received (40 sequential jobs)`);
    out();
    out(
      `From the finalising transaction (job.finished_at) to the signed POST arriving at a receiver in another process (https on loopback).`,
    );
    out();
    out(`| | p50 | p99 |`);
    out(`|---|---|---|`);
    out(`| raw signed HTTPS POST to the same receiver (baseline) | ${ms(pct(rawPost, 50))} | ${ms(pct(rawPost, 99))} |`);
    out(`| job completion → webhook received (goal ≤ 10 ms p50) | ${ms(pct(hookLatency, 50))} | ${ms(pct(hookLatency, 99))} |`);
    out();
    await receiver.close();

    const batchWs = submitters[33]!;
    const items = Array.from({ length: 50 }, () => ({
      source: { url: `https://www.youtube.com/watch?v=${videoId()}` },
      mode: 'captions_only',
    }));
    const [batchMs] = await timed(async () => {
      const res = await fetch(`${base}/v1/batches`, {
        method: 'POST',
        headers: { ...bearer(batchWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({ items }),
      });
      const batch = (await res.json()) as { id: string; items: { job_id: string }[] };
      if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${JSON.stringify(batch)}`);
      // Long polls on each child (a read each, well inside the read limit), then the batch itself.
      for (const item of batch.items)
        await fetch(`${base}/v1/jobs/${item.job_id}?wait=25`, { headers: bearer(batchWs.apiKey) }).then((r) => r.text());
      const b = (await (await fetch(`${base}/v1/batches/${batch.id}`, { headers: bearer(batchWs.apiKey) })).json()) as { status: string };
      if (b.status !== 'succeeded') throw new Error(`bench batch ended ${b.status}`);
    });
    const singleWs = submitters[34]!;
    const [singlesMs] = await timed(async () => {
      for (let i = 0; i < 50; i++) {
        const res = await fetch(`${base}/v1/jobs`, {
          method: 'POST',
          headers: { ...bearer(singleWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
          body: JSON.stringify({ source: { url: `https://www.youtube.com/watch?v=${videoId()}` }, mode: 'captions_only' }),
        });
        const job = (await res.json()) as { id: string };
        await fetch(`${base}/v1/jobs/${job.id}?wait=25`, { headers: bearer(singleWs.apiKey) });
      }
    });
    out(`## A batch of 50 caption jobs vs 50 single jobs one after another (end to end)`);
    out();
    out(`| | total | per job |`);
    out(`|---|---|---|`);
    out(`| 50 single jobs, each submitted after the previous finished (baseline) | ${ms(singlesMs)} | ${ms(singlesMs / 50)} |`);
    out(
      `| one batch of 50 (POST /v1/batches → batch succeeded) | ${ms(batchMs)} | ${ms(batchMs / 50)} (${ratio(singlesMs, batchMs)} faster) |`,
    );
    out();
  },
};
