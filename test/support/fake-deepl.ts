import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in for DeepL's text translation API, following its published reference (developers.deepl.com,
// "Translate text" and "Error handling"): `POST /v2/translate`, `Authorization: DeepL-Auth-Key <key>`, a JSON body
// `{text: string[], target_lang, source_lang?}`, at most 50 texts and 128 KiB; answers
// `{translations: [{detected_source_language, text}]}` in order, 403 for a wrong key, 400 for a missing or
// unsupported parameter, 413 for a request too large, 429 and 456 (quota exceeded) when told to. Its
// "translation" marks each text with the target (`[DE] …`): the tests check the route, not the language.

export interface FakeDeepl {
  url: string;
  /** Every translate request received: its auth header and JSON body. */
  requests: Array<{ authorization: string | undefined; body: { text?: string[]; target_lang?: string; source_lang?: string } }>;
  /** Answer the next n requests with this status instead (429, 456, 500 …). */
  failNext(status: number, n?: number): void;
  close(): Promise<void>;
}

const TARGETS = new Set([
  'AR',
  'BG',
  'CS',
  'DA',
  'DE',
  'EL',
  'EN-GB',
  'EN-US',
  'ES',
  'ES-419',
  'ET',
  'FI',
  'FR',
  'HE',
  'HU',
  'ID',
  'IT',
  'JA',
  'KO',
  'LT',
  'LV',
  'NB',
  'NL',
  'PL',
  'PT-BR',
  'PT-PT',
  'RO',
  'RU',
  'SK',
  'SL',
  'SV',
  'TH',
  'TR',
  'UK',
  'VI',
  'ZH',
  'ZH-HANS',
  'ZH-HANT',
]);
const MAX_BYTES = 128 * 1024;

export async function startFakeDeepl(apiKey: string): Promise<FakeDeepl> {
  const requests: FakeDeepl['requests'] = [];
  let failing: { status: number; left: number } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method !== 'POST' || req.url !== '/v2/translate') return send(404, { message: 'Not found' });
      const raw = Buffer.concat(chunks);
      if (raw.length > MAX_BYTES) return send(413, { message: 'Request Entity Too Large' });
      let body: FakeDeepl['requests'][number]['body'];
      try {
        body = JSON.parse(raw.toString('utf8')) as typeof body;
      } catch {
        return send(400, { message: 'Invalid JSON' });
      }
      requests.push({ authorization: req.headers.authorization, body });
      if (req.headers.authorization !== `DeepL-Auth-Key ${apiKey}`) return send(403, { message: 'Authorization failure, check auth_key' });
      if (failing && failing.left > 0) {
        failing.left--;
        return send(failing.status, { message: failing.status === 456 ? 'Quota exceeded' : 'Too many requests' });
      }
      if (!Array.isArray(body.text) || body.text.length === 0) return send(400, { message: "Parameter 'text' not specified." });
      if (body.text.length > 50) return send(413, { message: 'Too many texts: at most 50 per request' });
      if (!body.target_lang || !TARGETS.has(body.target_lang)) return send(400, { message: "Value for 'target_lang' not supported." });
      const detected = body.source_lang ?? 'EN';
      send(200, { translations: body.text.map((t) => ({ detected_source_language: detected, text: `[${body.target_lang}] ${t}` })) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext(status, n = 1) {
      failing = { status, left: n };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
