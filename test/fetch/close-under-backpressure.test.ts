import fs from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { safeFetch } from '../../integrations/fetch';
import { testTls } from '../support/tls';

// Regression: a server that closes the connection after a body larger than the
// consumer's buffers (Connection: close) crashed the process inside undici
// (assert(!this.paused) on socket end; nodejs/undici#5360, patched here until the
// move to undici 8 on Node 24, which fixes it).
it('downloads a large body from a server that closes the connection, without crashing', async () => {
  const tls = testTls();
  const body = Buffer.alloc(7_000_000, 1);
  body.write('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1');
  const server = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(body.length), connection: 'close' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'close-'));
  try {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/big.mp3`;
    const got = await safeFetch(url, { toFile: path.join(dir, 'big.mp3'), loopbackOnly: true, caForTests: tls.cert });
    expect(got.bytes).toBe(body.length);
    expect(fs.statSync(got.file).size).toBe(body.length);
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
