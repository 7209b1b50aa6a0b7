import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A self-signed certificate for 127.0.0.1/localhost, made with openssl once per
// process: webhook endpoints must be https, so the test receivers are too.
let cached: { key: string; cert: string } | undefined;

export function testTls(): { key: string; cert: string } {
  if (cached) return cached;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ts-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  cached = { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return cached;
}
