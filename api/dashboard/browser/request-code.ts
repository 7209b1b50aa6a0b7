// The "New transcript" page's request as code: the same POST /v1/jobs (after an upload's three calls when the
// source is a file) as curl, TypeScript and Python, shown beside the form (api/dashboard/browser/playground.ts).
// Pure, so test/unit/dashboard-request-code.test.ts runs what it writes.

/** The request the form describes: its fields by their API names, the source first. */
export type JobRequest = { source: { url: string } | { upload_id: string } } & Record<string, unknown>;

export interface CodeInput {
  /** The service's origin, as the page was loaded from. */
  origin: string;
  body: JobRequest;
  /** The Idempotency-Key of this request (a link's; a file's job is keyed by its upload). */
  idem: string;
  /** The file being uploaded, when the source is one. */
  upload: { filename: string; contentType: string; bytes: number } | null;
}

function shellQuote(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

function pyLiteral(value: unknown, indent: string): string {
  // JSON is Python syntax but for true, false and null.
  return JSON.stringify(value, null, 4)
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .replace(/\bnull\b/g, 'None')
    .replace(/\n/g, '\n' + indent);
}

export function requestCode(input: CodeInput): { curl: string; typescript: string; python: string } {
  const { origin, body, idem } = input;
  const isUpload = input.upload !== null;
  const filename = input.upload?.filename ?? 'talk.mp3';
  const contentType = input.upload?.contentType ?? 'audio/mpeg';
  const auth = '-H "Authorization: Bearer $TRANSCRIPT_API_KEY"';
  const curl: string[] = [];
  const ts: string[] = [];
  const py: string[] = [];
  let jobBody: JobRequest = body;
  // The same start for a link and a file: the base URL, the key from the environment, and (Python) one call helper.
  if (isUpload) ts.push("import { readFile } from 'node:fs/promises';", '');
  ts.push(
    'const base = ' + JSON.stringify(origin) + ';',
    "const headers = { Authorization: `Bearer ${process.env.TRANSCRIPT_API_KEY}`, 'Content-Type': 'application/json' };",
  );
  py.push(
    'import json, os, urllib.request',
    '',
    'base = ' + JSON.stringify(origin),
    'headers = {"Authorization": "Bearer " + os.environ["TRANSCRIPT_API_KEY"], "Content-Type": "application/json"}',
    '',
    '',
    'def call(method, url, body=None, extra=None):',
    '    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()',
    '    req = urllib.request.Request(url, data=data, method=method, headers={**headers, **(extra or {})})',
    '    with urllib.request.urlopen(req) as res:',
    '        text = res.read()',
    '        return json.loads(text) if text else None',
  );
  if (isUpload) {
    jobBody = { ...body, source: { upload_id: '$UPLOAD_ID' } };
    const slot = { filename, content_type: contentType, bytes: input.upload?.bytes ?? 0 };
    curl.push(
      '# 1. Reserve an upload slot, PUT the file to its signed URL, complete it.',
      'FILE=' + shellQuote(filename),
      'SLOT=$(curl -sS -X POST ' + shellQuote(origin + '/v1/uploads') + ' ' + auth + " -H 'Content-Type: application/json' \\",
      '  -d "{\\"filename\\":\\"$(basename "$FILE")\\",\\"content_type\\":\\"' + contentType + '\\",\\"bytes\\":$(wc -c < "$FILE")}")',
      'UPLOAD_ID=$(echo "$SLOT" | jq -r .id)',
      'curl -sS --fail-with-body -X PUT "$(echo "$SLOT" | jq -r .signed_upload_url)" -H ' +
        shellQuote('Content-Type: ' + contentType) +
        ' --data-binary @"$FILE"',
      "curl -sS --fail-with-body -w '\\n' -X POST " + shellQuote(origin + '/v1/uploads/') + '"$UPLOAD_ID/complete" ' + auth,
      '# 2. Start the job.',
    );
    const json = JSON.stringify(jobBody).split('"$UPLOAD_ID"');
    curl.push(
      'curl -sS -X POST ' + shellQuote(origin + '/v1/jobs') + ' ' + auth + ' \\',
      '  -H "Idempotency-Key: upload-$UPLOAD_ID" -H \'Content-Type: application/json\' \\',
      '  -d ' + shellQuote(json[0]) + '"\\"$UPLOAD_ID\\""' + shellQuote(json[1]),
    );
    ts.push(
      'const file = await readFile(' + JSON.stringify(filename) + ');',
      'const slot = await (await fetch(`${base}/v1/uploads`, {',
      "  method: 'POST',",
      '  headers,',
      '  body: JSON.stringify({ filename: ' +
        JSON.stringify(filename) +
        ', content_type: ' +
        JSON.stringify(contentType) +
        ', bytes: file.length }),',
      '})).json();',
      "await fetch(slot.signed_upload_url, { method: 'PUT', headers: { 'Content-Type': " +
        JSON.stringify(contentType) +
        ' }, body: file });',
      "await fetch(`${base}/v1/uploads/${slot.id}/complete`, { method: 'POST', headers });",
    );
    py.push(
      '',
      '',
      'with open(' + JSON.stringify(filename) + ', "rb") as f:',
      '    media = f.read()',
      'slot = call("POST", base + "/v1/uploads", ' +
        pyLiteral(slot, '')
          .replace(/"bytes": \d+/, '"bytes": len(media)')
          .replace(/\n/g, ' ')
          .replace(/\s+/g, ' ') +
        ')',
      'call("PUT", slot["signed_upload_url"], media, {"Content-Type": ' + JSON.stringify(contentType) + '})',
      'call("POST", base + "/v1/uploads/" + slot["id"] + "/complete")',
    );
  } else {
    curl.push(
      'curl -sS -X POST ' + shellQuote(origin + '/v1/jobs') + ' ' + auth + ' \\',
      "  -H 'Idempotency-Key: " + idem + "' -H 'Content-Type: application/json' \\",
      '  -d ' + shellQuote(JSON.stringify(body)),
    );
  }
  curl.push('# Then wait for it: GET /v1/jobs/{id}?wait=25 until its status is final.');
  const tsBody = JSON.stringify(jobBody, null, 2).replace('"$UPLOAD_ID"', 'slot.id').replace(/\n/g, '\n  ');
  ts.push(
    'const job = await (await fetch(`${base}/v1/jobs`, {',
    "  method: 'POST',",
    "  headers: { ...headers, 'Idempotency-Key': " + (isUpload ? '`upload-${slot.id}`' : JSON.stringify(idem)) + ' },',
    '  body: JSON.stringify(' + tsBody + '),',
    '})).json();',
    '// Long-poll until the job is final, then read the transcript.',
    'let done = job;',
    "while (!['succeeded', 'failed', 'cancelled'].includes(done.status))",
    '  done = await (await fetch(`${base}/v1/jobs/${job.id}?wait=25`, { headers })).json();',
    'console.log(done.status, done.result_id);',
  );
  py.push(
    '',
    'job = call("POST", base + "/v1/jobs", ' +
      pyLiteral(jobBody, '').replace('"$UPLOAD_ID"', 'slot["id"]') +
      ', {"Idempotency-Key": ' +
      (isUpload ? '"upload-" + slot["id"]' : JSON.stringify(idem)) +
      '})',
    '# Long-poll until the job is final, then read the transcript.',
    'while job["status"] not in ("succeeded", "failed", "cancelled"):',
    '    job = call("GET", base + "/v1/jobs/" + job["id"] + "?wait=25")',
    'print(job["status"], job["result_id"])',
  );
  return { curl: curl.join('\n'), typescript: ts.join('\n'), python: py.join('\n') };
}
