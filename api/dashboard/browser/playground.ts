// The "New transcript" page (api/dashboard/views-playground.ts): builds one POST /v1/jobs request from the
// form, uploads a file straight to the signed URL first when one is chosen (with progress), shows the price
// of a measured upload and fills max_credits with it, shows the same request as curl, TypeScript and Python,
// then submits and opens the job's page, which follows the job live. It calls the public API with the
// session cookie and the page's CSRF token, as an integration would with a key.
import { api, refused, showRefusal, type Refusal } from './api';
import { attr, clock, closest, required } from './dom';
import { mountListen } from './listen';
import { requestCode, type JobRequest } from './request-code';

interface UploadSlot {
  id: string;
  signed_upload_url: string;
  status: string;
  error?: Refusal['error'];
}
interface Quote {
  credits: number;
  duration_ms: number;
}
/** The upload being prepared. */
interface PendingUpload {
  file: File;
  contentType: string;
  id: string | null;
  ready: boolean;
  quote: Quote | null;
}

const MEDIA_TYPES: Record<string, string> = {
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

/** PUT to the signed URL with progress: XMLHttpRequest reports upload progress, fetch does not. */
function put(url: string, file: File, contentType: string, onProgress: (percent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.floor((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let data: Refusal;
      try {
        data = JSON.parse(xhr.responseText) as Refusal;
      } catch {
        data = refused(`The upload was refused (HTTP ${xhr.status}).`);
      }
      reject(data);
    };
    xhr.onerror = () => reject(refused('The upload did not reach the store: check the connection and choose the file again.'));
    xhr.send(file);
  });
}

function playground(form: HTMLFormElement): void {
  const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
  const call = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api<T>(csrf, method, path, body, headers);
  const origin = window.location.origin;
  const mode = required(document, '#pg-mode', HTMLSelectElement);
  const maxCredits = required(document, '#pg-max-credits', HTMLInputElement);
  const quote = required(form, '[data-quote]', HTMLElement);
  const errorBox = required(form, '[data-error]', HTMLElement);
  const submit = required(form, '[data-submit]', HTMLButtonElement);
  const fileInput = required(document, '#pg-file', HTMLInputElement);
  const progress = required(document, '#pg-progress', HTMLProgressElement);
  const uploadStatus = required(form, '[data-upload-status]', HTMLElement);
  const perMinute = Number(form.getAttribute('data-credits-per-minute'));

  let upload: PendingUpload | null = null;
  /**
   * One Idempotency-Key per distinct request, so submitting the same request twice makes one job; the link
   * code shown uses it too (running it finds the page's job). The file code keys the job by its own upload.
   */
  let key: { body: string | null; value: string } = { body: null, value: '' };

  const sourceKind = (): string => form.querySelector<HTMLInputElement>('input[name="source_kind"]:checked')?.value ?? 'url';

  const isShown = (el: Element): boolean => {
    for (let node: HTMLElement | null = el instanceof HTMLElement ? el : null; node && node !== form; node = node.parentElement)
      if (node.hidden) return false;
    return true;
  };

  /** The request the form describes: its fields by their API names, empty ones left out. */
  const request = (): JobRequest => {
    const fields: Record<string, unknown> = {};
    let source: JobRequest['source'] | undefined = sourceKind() === 'upload' ? { upload_id: upload?.id ?? '<upload id>' } : undefined;
    // Kinds redacted besides the default ones (`redact_pii_types`: those four and the boxes ticked), with redact_pii only.
    const extraKinds: string[] = [];
    for (const el of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>('[data-field]')) {
      if (!isShown(el) || el.disabled) continue;
      const name = attr(el, 'data-field');
      if (el instanceof HTMLInputElement && el.hasAttribute('data-item')) {
        if (el.checked) extraKinds.push(attr(el, 'data-item'));
        continue;
      }
      let value: unknown;
      // A box that turns a default of true off says so (data-checked-value="false": `disfluencies`).
      if (el instanceof HTMLInputElement && el.type === 'checkbox')
        value = el.checked ? el.getAttribute('data-checked-value') !== 'false' : undefined;
      else {
        const text = el.value.trim();
        if (text === '') value = undefined;
        else if (el.hasAttribute('data-list'))
          value = text
            .split(el.getAttribute('data-list') === 'lines' ? /\r?\n/ : /,/)
            .map((s) => s.trim())
            .filter(Boolean);
        else if (el.hasAttribute('data-number')) value = /^\d+$/.test(text) ? Number(text) : text;
        else value = text;
      }
      if (value === undefined) continue;
      if (name === 'source.url') source = { url: String(value) };
      else fields[name] = value;
    }
    const defaultKinds = form.querySelector('[data-default-kinds]')?.getAttribute('data-default-kinds')?.split(',') ?? [];
    if (fields.redact_pii === true && extraKinds.length > 0) fields.redact_pii_types = [...defaultKinds, ...extraKinds];
    // The API's order: source first, the rest as the form lists them.
    return { source: source ?? { url: '' }, ...fields };
  };

  const idempotencyKey = (body: JobRequest): string => {
    const text = JSON.stringify(body);
    if (key.body !== text) key = { body: text, value: crypto.randomUUID() };
    return key.value;
  };

  const showQuote = (): void => {
    const m = mode.value;
    const wordTiming = form.querySelector<HTMLInputElement>('[data-field="word_timing"]');
    if (sourceKind() === 'upload') {
      quote.textContent = upload?.quote
        ? `This file is ${clock(upload.quote.duration_ms)} long: transcribing it costs ${upload.quote.credits} credits. The spending cap is set to that.`
        : 'Choose a file: its price shows here once it is uploaded and measured.';
    } else if (m === 'captions_only' && !wordTiming?.checked) {
      quote.textContent = 'A caption transcript costs 1 credit; nothing is charged when the video has no captions.';
    } else {
      quote.textContent =
        `Priced when the media is measured, before anything is charged: ${perMinute} credits per started minute` +
        (m === 'transcribe' ? '' : ' when captions are not used') +
        '. The cap stops a job that would cost more.';
    }
  };

  const showCode = (): void => {
    const body = request();
    const code = requestCode({
      origin,
      body,
      idem: idempotencyKey(body),
      upload:
        sourceKind() === 'upload'
          ? { filename: upload?.file.name ?? 'talk.mp3', contentType: upload?.contentType ?? 'audio/mpeg', bytes: upload?.file.size ?? 0 }
          : null,
    });
    for (const [lang, text] of Object.entries(code)) {
      const block = document.querySelector(`[data-code="${lang}"]`);
      if (block) block.textContent = text;
    }
  };

  const refresh = (): void => {
    const kind = sourceKind();
    for (const el of form.querySelectorAll<HTMLElement>('[data-when]')) el.hidden = attr(el, 'data-when') !== kind;
    // A file is always AI transcription.
    for (const o of mode.options) o.disabled = kind === 'upload' && o.value !== 'transcribe';
    if (kind === 'upload') mode.value = 'transcribe';
    for (const el of form.querySelectorAll<HTMLElement>('[data-when-mode]'))
      el.hidden = !attr(el, 'data-when-mode').split(' ').includes(mode.value);
    for (const el of form.querySelectorAll<HTMLElement>('[data-when-checked]')) {
      const box = document.getElementById(attr(el, 'data-when-checked'));
      el.hidden = !(box instanceof HTMLInputElement && box.checked);
    }
    showQuote();
    showCode();
  };

  const showError = (err: Refusal | null): void => showRefusal(errorBox, err);

  const setUploadStatus = (text: string, percent?: number): void => {
    uploadStatus.textContent = text;
    if (percent !== undefined) {
      progress.value = percent;
      progress.textContent = `${percent} %`;
    }
  };

  const waitReady = async (id: string): Promise<UploadSlot> => {
    for (;;) {
      const r = await call<UploadSlot>('GET', `/v1/uploads/${encodeURIComponent(id)}`);
      if (r.body.status === 'ready') return r.body;
      if (r.body.status === 'failed') throw { error: r.body.error } satisfies Refusal;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };

  const startUpload = async (file: File): Promise<void> => {
    const ext = (file.name.split('.').pop() ?? '').toLowerCase();
    const contentType = file.type || MEDIA_TYPES[ext] || 'application/octet-stream';
    const mine: PendingUpload = { file, contentType, id: null, ready: false, quote: null };
    upload = mine;
    showError(null);
    setUploadStatus('Reserving a slot…', 0);
    refresh();
    try {
      const slot = await call<UploadSlot>('POST', '/v1/uploads', { filename: file.name, content_type: contentType, bytes: file.size });
      const id = slot.body.id;
      mine.id = id;
      setUploadStatus('Uploading…', 0);
      await put(slot.body.signed_upload_url, file, contentType, (percent) => setUploadStatus(`Uploading… ${percent} %`, percent));
      setUploadStatus('Uploaded. Checking the file…', 100);
      const completed = await call<UploadSlot>('POST', `/v1/uploads/${encodeURIComponent(id)}/complete`);
      if (completed.status !== 200) await waitReady(id);
      const priced = await call<Quote>('GET', `/dashboard/new/quote?upload_id=${encodeURIComponent(id)}`);
      if (upload !== mine) return;
      mine.ready = true;
      mine.quote = priced.body;
      maxCredits.value = String(priced.body.credits);
      setUploadStatus(`Ready: ${file.name}, ${clock(priced.body.duration_ms)}.`);
      refresh();
    } catch (err) {
      if (upload !== mine) return;
      upload = null;
      setUploadStatus('The file was not accepted.', 0);
      showError(err as Refusal);
      refresh();
    }
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    showError(null);
    if (sourceKind() === 'upload' && !upload?.ready) {
      showError(refused('Choose a file and wait until it is uploaded and checked.'));
      return;
    }
    const body = request();
    submit.disabled = true;
    call<{ id: string }>('POST', '/v1/jobs', body, { 'idempotency-key': idempotencyKey(body) })
      .then((r) => window.location.assign(`/dashboard/jobs/${encodeURIComponent(r.body.id)}`))
      .catch((err: Refusal) => {
        submit.disabled = false;
        showError(err);
      });
  });

  form.addEventListener('input', refresh);
  form.addEventListener('change', (e) => {
    const chosen = e.target === fileInput ? fileInput.files?.[0] : undefined;
    if (chosen) void startUpload(chosen);
    refresh();
  });

  const drop = form.querySelector('[data-drop]');
  if (drop) {
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e instanceof DragEvent ? e.dataTransfer?.files[0] : undefined;
      if (f) void startUpload(f);
    });
  }

  document.addEventListener('click', (e) => {
    const button = closest(e.target, '[data-copy-code]');
    if (!button) return;
    const code = document.querySelector(`[data-code="${attr(button, 'data-copy-code')}"]`);
    if (code && navigator.clipboard)
      void navigator.clipboard.writeText(code.textContent ?? '').then(() => {
        button.textContent = 'Copied';
        setTimeout(() => (button.textContent = 'Copy'), 1500);
      });
  });

  refresh();
}

const form = document.getElementById('playground');
if (form instanceof HTMLFormElement) playground(form);
const listenSection = document.querySelector('[data-listen]');
if (listenSection instanceof HTMLElement)
  mountListen(listenSection, document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '');
