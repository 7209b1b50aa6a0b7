// The "New transcript" page (api/dashboard/views-playground.ts): builds one POST /v1/jobs request from the
// form, uploads a file straight to the signed URL first when one is chosen (with progress), shows the price
// of a measured upload and fills max_credits with it, shows the same request as curl, TypeScript and Python,
// then submits and opens the job's page, which follows the job live. It calls the public API with the
// session cookie and the page's CSRF token, as an integration would with a key.
(function () {
  'use strict';

  var form = document.getElementById('playground');
  if (!form) return;
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  var origin = window.location.origin;
  var mode = document.getElementById('pg-mode');
  var maxCredits = document.getElementById('pg-max-credits');
  var quote = form.querySelector('[data-quote]');
  var errorBox = form.querySelector('[data-error]');
  var submit = form.querySelector('[data-submit]');
  var fileInput = document.getElementById('pg-file');
  var progress = document.getElementById('pg-progress');
  var uploadStatus = form.querySelector('[data-upload-status]');
  var perMinute = Number(form.getAttribute('data-credits-per-minute'));

  /** The upload being prepared: { file, contentType, id, ready, quote } or null. */
  var upload = null;
  /**
   * One Idempotency-Key per distinct request, so submitting the same request twice makes one job; the link
   * code shown uses it too (running it finds the page's job). The file code keys the job by its own upload.
   */
  var key = { body: null, value: null };

  var MEDIA_TYPES = {
    mp3: 'audio/mpeg',
    m4a: 'audio/mp4',
    aac: 'audio/aac',
    wav: 'audio/wav',
    ogg: 'audio/ogg',
    opus: 'audio/ogg',
    weba: 'audio/webm',
    webm: 'video/webm',
    mp4: 'video/mp4',
  };

  function sourceKind() {
    var checked = form.querySelector('input[name="source_kind"]:checked');
    return checked ? checked.value : 'url';
  }

  function isShown(el) {
    for (var node = el; node && node !== form; node = node.parentElement) if (node.hidden) return false;
    return true;
  }

  /** The request the form describes: its fields by their API names, empty ones left out. */
  function request() {
    var body = {};
    if (sourceKind() === 'upload') body.source = { upload_id: upload && upload.id ? upload.id : '<upload id>' };
    Array.prototype.forEach.call(form.querySelectorAll('[data-field]'), function (el) {
      if (!isShown(el) || el.disabled) return;
      var name = el.getAttribute('data-field');
      var value;
      if (el.type === 'checkbox') value = el.checked ? true : undefined;
      else {
        var text = el.value.trim();
        if (text === '') value = undefined;
        else if (el.hasAttribute('data-list'))
          value = text
            .split(el.getAttribute('data-list') === 'lines' ? /\r?\n/ : /,/)
            .map(function (s) {
              return s.trim();
            })
            .filter(Boolean);
        else if (el.hasAttribute('data-number')) value = /^\d+$/.test(text) ? Number(text) : text;
        else value = text;
      }
      if (value === undefined) return;
      if (name === 'source.url') body.source = { url: value };
      else body[name] = value;
    });
    if (!body.source) body.source = { url: '' };
    // The API's order: source first, the rest as the form lists them.
    var ordered = { source: body.source };
    Object.keys(body).forEach(function (k) {
      if (k !== 'source') ordered[k] = body[k];
    });
    return ordered;
  }

  function idempotencyKey(body) {
    var text = JSON.stringify(body);
    if (key.body !== text) key = { body: text, value: crypto.randomUUID() };
    return key.value;
  }

  // ------------------------------------------------------------ what is shown

  function refresh() {
    var kind = sourceKind();
    Array.prototype.forEach.call(form.querySelectorAll('[data-when]'), function (el) {
      el.hidden = el.getAttribute('data-when') !== kind;
    });
    // A file is always AI transcription.
    Array.prototype.forEach.call(mode.options, function (o) {
      o.disabled = kind === 'upload' && o.value !== 'transcribe';
    });
    if (kind === 'upload') mode.value = 'transcribe';
    Array.prototype.forEach.call(form.querySelectorAll('[data-when-mode]'), function (el) {
      el.hidden = el.getAttribute('data-when-mode').split(' ').indexOf(mode.value) < 0;
    });
    Array.prototype.forEach.call(form.querySelectorAll('[data-when-checked]'), function (el) {
      var box = document.getElementById(el.getAttribute('data-when-checked'));
      el.hidden = !box || !box.checked;
    });
    showQuote();
    showCode();
  }

  function clock(ms) {
    var s = Math.round(ms / 1000);
    var h = Math.floor(s / 3600);
    var m = Math.floor((s % 3600) / 60);
    var pad = function (n) {
      return String(n).padStart(2, '0');
    };
    return (h ? h + ':' + pad(m) : String(m)) + ':' + pad(s % 60);
  }

  function showQuote() {
    var m = mode.value;
    var wordTiming = form.querySelector('[data-field="word_timing"]');
    var text;
    if (sourceKind() === 'upload') {
      text =
        upload && upload.quote
          ? 'This file is ' +
            clock(upload.quote.duration_ms) +
            ' long: transcribing it costs ' +
            upload.quote.credits +
            ' credits. The spending cap is set to that.'
          : 'Choose a file: its price shows here once it is uploaded and measured.';
    } else if (m === 'captions_only' && !(wordTiming && wordTiming.checked)) {
      text = 'A caption transcript costs 1 credit; nothing is charged when the video has no captions.';
    } else {
      text =
        'Priced when the media is measured, before anything is charged: ' +
        perMinute +
        ' credits per started minute' +
        (m === 'transcribe' ? '' : ' when captions are not used') +
        '. The cap stops a job that would cost more.';
    }
    quote.textContent = text;
  }

  // ------------------------------------------------------------ the request as code

  function shellQuote(s) {
    return "'" + s.replace(/'/g, "'\\''") + "'";
  }

  function pyLiteral(value, indent) {
    // JSON is Python syntax but for true, false and null.
    return JSON.stringify(value, null, 4)
      .replace(/\btrue\b/g, 'True')
      .replace(/\bfalse\b/g, 'False')
      .replace(/\bnull\b/g, 'None')
      .replace(/\n/g, '\n' + indent);
  }

  function showCode() {
    var body = request();
    var idem = idempotencyKey(body);
    var isUpload = sourceKind() === 'upload';
    var file = upload && upload.file ? upload.file : null;
    var filename = file ? file.name : 'talk.mp3';
    var contentType = upload ? upload.contentType : 'audio/mpeg';
    var auth = '-H "Authorization: Bearer $TRANSCRIPT_API_KEY"';
    var curl = [];
    var ts = [];
    var py = [];
    var jobBody = body;
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
      jobBody = Object.assign({}, body, { source: { upload_id: '$UPLOAD_ID' } });
      var slot = { filename: filename, content_type: contentType, bytes: file ? file.size : 0 };
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
      var json = JSON.stringify(jobBody).split('"$UPLOAD_ID"');
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
    var tsBody = JSON.stringify(jobBody, null, 2).replace('"$UPLOAD_ID"', 'slot.id').replace(/\n/g, '\n  ');
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
    document.querySelector('[data-code="curl"]').textContent = curl.join('\n');
    document.querySelector('[data-code="typescript"]').textContent = ts.join('\n');
    document.querySelector('[data-code="python"]').textContent = py.join('\n');
  }

  // ------------------------------------------------------------ calls

  function showError(err) {
    errorBox.textContent = '';
    if (!err) return;
    var p = document.createElement('p');
    p.className = 'error';
    var e = err.error || {};
    p.textContent = e.message || err.message || 'That did not work.';
    if (e.details && e.details.detail) p.textContent += ' (' + e.details.detail + ')';
    errorBox.appendChild(p);
    if (e.code || err.request_id) {
      var q = document.createElement('p');
      q.className = 'hint';
      q.textContent = (e.code ? 'Code ' + e.code : '') + (err.request_id ? ' · request id ' + err.request_id : '');
      errorBox.appendChild(q);
    }
    errorBox.focus();
  }

  /** A JSON call of the public API with the session; rejects with the error envelope. */
  function api(method, path, body, headers) {
    var h = Object.assign({ accept: 'application/json', 'x-csrf-token': csrf }, headers || {});
    if (body !== undefined) h['content-type'] = 'application/json';
    return fetch(path, {
      method: method,
      credentials: 'same-origin',
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (r) {
      return r.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch {
          data = { error: { message: 'The service answered HTTP ' + r.status + '.' } };
        }
        if (!r.ok) return Promise.reject(data || { error: { message: 'The service answered HTTP ' + r.status + '.' } });
        return { status: r.status, body: data };
      });
    });
  }

  function setUploadStatus(text, percent) {
    uploadStatus.textContent = text;
    if (percent !== undefined) {
      progress.value = percent;
      progress.textContent = percent + ' %';
    }
  }

  /** PUT to the signed URL with progress: XMLHttpRequest reports upload progress, fetch does not. */
  function put(url, file, contentType, onProgress) {
    return new Promise(function (resolve, reject) {
      var xhr = new XMLHttpRequest();
      xhr.open('PUT', url);
      xhr.setRequestHeader('Content-Type', contentType);
      xhr.upload.onprogress = function (e) {
        if (e.lengthComputable) onProgress(Math.floor((e.loaded / e.total) * 100));
      };
      xhr.onload = function () {
        if (xhr.status >= 200 && xhr.status < 300) return resolve();
        var data = null;
        try {
          data = JSON.parse(xhr.responseText);
        } catch {
          data = { error: { message: 'The upload was refused (HTTP ' + xhr.status + ').' } };
        }
        reject(data);
      };
      xhr.onerror = function () {
        reject({ error: { message: 'The upload did not reach the store: check the connection and choose the file again.' } });
      };
      xhr.send(file);
    });
  }

  function waitReady(id) {
    return api('GET', '/v1/uploads/' + encodeURIComponent(id)).then(function (r) {
      if (r.body.status === 'ready') return r.body;
      if (r.body.status === 'failed') return Promise.reject({ error: r.body.error });
      return new Promise(function (resolve) {
        setTimeout(resolve, 1000);
      }).then(function () {
        return waitReady(id);
      });
    });
  }

  function startUpload(file) {
    var ext = (file.name.split('.').pop() || '').toLowerCase();
    var contentType = file.type || MEDIA_TYPES[ext] || 'application/octet-stream';
    var mine = { file: file, contentType: contentType, id: null, ready: false, quote: null };
    upload = mine;
    showError(null);
    setUploadStatus('Reserving a slot…', 0);
    refresh();
    api('POST', '/v1/uploads', { filename: file.name, content_type: contentType, bytes: file.size })
      .then(function (r) {
        mine.id = r.body.id;
        setUploadStatus('Uploading…', 0);
        return put(r.body.signed_upload_url, file, contentType, function (percent) {
          setUploadStatus('Uploading… ' + percent + ' %', percent);
        });
      })
      .then(function () {
        setUploadStatus('Uploaded. Checking the file…', 100);
        return api('POST', '/v1/uploads/' + encodeURIComponent(mine.id) + '/complete');
      })
      .then(function (r) {
        return r.status === 200 ? r.body : waitReady(mine.id);
      })
      .then(function () {
        return api('GET', '/dashboard/new/quote?upload_id=' + encodeURIComponent(mine.id));
      })
      .then(function (r) {
        if (upload !== mine) return;
        mine.ready = true;
        mine.quote = r.body;
        maxCredits.value = String(r.body.credits);
        setUploadStatus('Ready: ' + file.name + ', ' + clock(r.body.duration_ms) + '.');
        refresh();
      })
      .catch(function (err) {
        if (upload !== mine) return;
        upload = null;
        setUploadStatus('The file was not accepted.', 0);
        showError(err);
        refresh();
      });
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    showError(null);
    if (sourceKind() === 'upload' && !(upload && upload.ready)) {
      showError({ error: { message: 'Choose a file and wait until it is uploaded and checked.' } });
      return;
    }
    var body = request();
    submit.disabled = true;
    api('POST', '/v1/jobs', body, { 'idempotency-key': idempotencyKey(body) })
      .then(function (r) {
        window.location.assign('/dashboard/jobs/' + encodeURIComponent(r.body.id));
      })
      .catch(function (err) {
        submit.disabled = false;
        showError(err);
      });
  });

  form.addEventListener('input', refresh);
  form.addEventListener('change', function (e) {
    if (e.target === fileInput && fileInput.files && fileInput.files[0]) startUpload(fileInput.files[0]);
    refresh();
  });

  var drop = form.querySelector('[data-drop]');
  if (drop) {
    drop.addEventListener('dragover', function (e) {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', function () {
      drop.classList.remove('over');
    });
    drop.addEventListener('drop', function (e) {
      e.preventDefault();
      drop.classList.remove('over');
      var f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (f) startUpload(f);
    });
  }

  document.addEventListener('click', function (e) {
    var button = e.target instanceof Element ? e.target.closest('[data-copy-code]') : null;
    if (!button) return;
    var code = document.querySelector('[data-code="' + button.getAttribute('data-copy-code') + '"]');
    if (code && navigator.clipboard)
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = 'Copied';
        setTimeout(function () {
          button.textContent = 'Copy';
        }, 1500);
      });
  });

  refresh();
})();
