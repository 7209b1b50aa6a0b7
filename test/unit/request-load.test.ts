import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { requestWaitSignal } from '../../api/http/drain';
import { BUSY_LINGER_MS, BUSY_WRITES_IN_FLIGHT, createRequestLoad } from '../../api/http/request-load';
import { waitFor } from '../../stack/proc';

// What the StartDispatcher asks before a start (domain/workflow-starts.ts, `busy`): the writes this process is
// answering. A request is counted from its arrival until its response closes; reads and waits are no load.
describe('RequestLoad', () => {
  // The linger's clock, moved by hand.
  let clock = 0;
  const load = createRequestLoad(() => clock);
  const release: (() => void)[] = [];
  const app = express();
  app.use(load.middleware);
  const held = (_req: express.Request, res: express.Response) => release.push(() => res.json({ ok: true }));
  app.post('/v1/jobs', held);
  app.get('/v1/jobs', held);
  app.post('/v1/uploads/:id/complete', (req, res) => {
    const signal = requestWaitSignal(req, { requestLoad: load });
    release.push(() => res.json({ aborted: signal.aborted }));
  });
  app.post('/dashboard/form', held);
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const arrived = async (count: number) => {
    await waitFor(() => release.length >= count, 1_000, 2);
    expect(release.length).toBe(count);
  };
  const answerAll = () => release.splice(0).forEach((answer) => answer());

  it('counts writes to /v1/ in flight, is busy from BUSY_WRITES_IN_FLIGHT on, and uncounts each as it closes', async () => {
    const writes = Array.from({ length: BUSY_WRITES_IN_FLIGHT }, () => fetch(`${base}/v1/jobs`, { method: 'POST' }));
    const others = [fetch(`${base}/v1/jobs`), fetch(`${base}/dashboard/form`, { method: 'POST' })];
    await arrived(BUSY_WRITES_IN_FLIGHT + 2);
    // Reads and requests outside the API's /v1/ paths are not counted.
    expect(load.writesInFlight).toBe(BUSY_WRITES_IN_FLIGHT);
    expect(load.busy()).toBe(true);
    answerAll();
    await Promise.all([...writes, ...others]);
    await waitFor(() => load.writesInFlight === 0, 1_000, 2);
    expect(load.writesInFlight).toBe(0);
    // Still busy for BUSY_LINGER_MS after the last write that found the mark: a burst's count dips between
    // runs of answers, and a start made in each dip slowed the answers after it.
    expect(load.busy()).toBe(true);
    clock += BUSY_LINGER_MS - 1;
    expect(load.busy()).toBe(true);
    clock += 1;
    expect(load.busy()).toBe(false);
  });

  it('is not kept busy by writes that arrive below the mark', async () => {
    clock += 10 * BUSY_LINGER_MS;
    const writes = Array.from({ length: BUSY_WRITES_IN_FLIGHT - 1 }, () => fetch(`${base}/v1/jobs`, { method: 'POST' }));
    await arrived(BUSY_WRITES_IN_FLIGHT - 1);
    expect(load.busy()).toBe(false);
    answerAll();
    await Promise.all(writes);
    await waitFor(() => load.writesInFlight === 0, 1_000, 2);
    expect(load.busy()).toBe(false);
  });

  it('uncounts a write once it only waits, and once only', async () => {
    const waits = Array.from({ length: BUSY_WRITES_IN_FLIGHT }, () => fetch(`${base}/v1/uploads/u1/complete`, { method: 'POST' }));
    await arrived(BUSY_WRITES_IN_FLIGHT);
    expect(load.writesInFlight).toBe(0);
    expect(load.busy()).toBe(false);
    answerAll();
    await Promise.all(waits);
    // Closing does not uncount them a second time.
    await new Promise((r) => setTimeout(r, 20));
    expect(load.writesInFlight).toBe(0);
  });

  it('uncounts a write whose client went away before the answer', async () => {
    const gone = new AbortController();
    const write = fetch(`${base}/v1/jobs`, { method: 'POST', signal: gone.signal }).catch(() => 'aborted');
    await arrived(1);
    expect(load.writesInFlight).toBe(1);
    gone.abort();
    expect(await write).toBe('aborted');
    await waitFor(() => load.writesInFlight === 0, 1_000, 2);
    expect(load.writesInFlight).toBe(0);
    answerAll();
  });
});
