import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLoad, type Load } from '../../bench/harness';

// The bench's load generator (bench/load.js) on a burst of a fixed amount: its duration is the burst's own,
// first request to last answer. autocannon's runs on to its next 1 s sample after the last answer, so a
// burst of 4.1 s read 5.01 s and the burst's rate in bench/RESULTS.md came out as much as a fifth low.

describe('bench load generator, a burst of a fixed amount', () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(202, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jobs`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('times the burst to its last answer, not to the next whole-second sample', async () => {
    const burst = (await runLoad({
      url,
      method: 'POST',
      connections: 8,
      durationSeconds: 3,
      amount: 64,
      uniqueJob: true,
      body: {},
    })) as Load;
    expect(burst.statuses).toEqual({ '202': 64 });
    expect(burst.total).toBe(64);
    // 64 answers from a loopback server that answers at once: far under the 1 s autocannon's first sample
    // needs (its duration is never below it).
    expect(burst.seconds).toBeGreaterThan(0);
    expect(burst.seconds).toBeLessThan(1);
    expect(burst.rps).toBeCloseTo(64 / burst.seconds, 6);
  });
});
