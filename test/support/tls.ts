import fs from 'node:fs';
import path from 'node:path';

// The one TLS authority of the tests: a self-signed certificate (valid to
// 2126) for localhost, 127.0.0.1, ::1, media.test and *.media.test, served by
// every loopback https server of the tests (webhook receivers, media origins,
// client metadata documents) and trusted through the service's `caForTests`.

const DIR = path.join(__dirname, 'tls-authority');
let cached: { key: string; cert: string } | undefined;

export function testTls(): { key: string; cert: string } {
  cached ??= { key: fs.readFileSync(path.join(DIR, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(DIR, 'cert.pem'), 'utf8') };
  return cached;
}
