// The playground's "Speak" section (api/dashboard/views-playground.ts): the browser's microphone transcribed in
// real time through GET /v1/listen, as a browser integration does it. A token from POST /v1/listen/tokens (with
// the session and the CSRF token: a WebSocket carries no Authorization header, and the service opens no stream
// on a cookie), then the WebSocket; the audio is 16 kHz PCM from listen-worklet.ts; partials show as they come,
// finals stay. A refused upgrade is explained by the plain GET of the same address, which answers the refusal.
import { api, refused, showRefusal, type Refusal } from './api';
import { clock, required } from './dom';

type ServerMessage =
  | { type: 'session'; id: string; language: string | null }
  | { type: 'partial' | 'final'; start: number; end: number; text: string; language: string }
  | { type: 'error'; error: NonNullable<Refusal['error']>; request_id?: string }
  | { type: 'closed'; audio_seconds: number; credits_charged: number };

/** The microphone as 0.1 s chunks of 16 kHz PCM, until closed. */
interface Capture {
  onChunk: (pcm: ArrayBuffer) => void;
  close(): void;
}

async function openMicrophone(): Promise<Capture> {
  const media = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  let context: AudioContext;
  try {
    context = new AudioContext({ sampleRate: 16_000 });
  } catch {
    context = new AudioContext(); // a browser that will not run at 16 kHz: the worklet converts
  }
  try {
    await context.audioWorklet.addModule('/dashboard/static/listen-worklet.js');
    const node = new AudioWorkletNode(context, 'pcm-capture');
    // A node is only run while something pulls its output: a silent gain into the speakers does.
    const silent = context.createGain();
    silent.gain.value = 0;
    context.createMediaStreamSource(media).connect(node).connect(silent).connect(context.destination);
    await context.resume();
    const capture: Capture = {
      onChunk: () => undefined,
      close: () => {
        node.port.onmessage = null;
        for (const track of media.getTracks()) track.stop();
        void context.close();
      },
    };
    node.port.onmessage = (e: MessageEvent<ArrayBuffer>) => capture.onChunk(e.data);
    return capture;
  } catch (err) {
    for (const track of media.getTracks()) track.stop();
    void context.close();
    throw err;
  }
}

/** Why an upgrade was refused: the plain GET runs the same checks and answers the refusal in the envelope. */
async function refusalOf(csrf: string, address: URL): Promise<Refusal> {
  try {
    await api(csrf, 'GET', address.pathname + address.search);
    return refused('The stream could not be opened.');
  } catch (err) {
    return err instanceof TypeError ? refused('The stream could not be opened: check the connection.') : (err as Refusal);
  }
}

export function mountListen(root: HTMLElement, csrf: string): void {
  const start = required(root, '[data-listen-start]', HTMLButtonElement);
  const stop = required(root, '[data-listen-stop]', HTMLButtonElement);
  const language = required(root, '#pg-listen-language', HTMLInputElement);
  const status = required(root, '[data-listen-status]', HTMLElement);
  const errorBox = required(root, '[data-listen-error]', HTMLElement);
  const finals = required(root, '[data-listen-finals]', HTMLOListElement);
  const partial = required(root, '[data-listen-partial]', HTMLElement);
  const keep = required(root, '#pg-listen-keep', HTMLInputElement);
  const download = required(root, '[data-listen-download]', HTMLElement);
  const audioLink = required(root, '[data-listen-audio]', HTMLAnchorElement);

  let current: { ws: WebSocket; capture: Capture } | null = null;
  const fail = (err: Refusal) => showRefusal(errorBox, err);
  const idle = () => {
    current = null;
    start.disabled = false;
    stop.disabled = true;
  };

  start.addEventListener('click', () => void begin());
  stop.addEventListener('click', () => {
    if (!current) return;
    // The microphone stops now; the stream answers its last final, then `closed` with the charge.
    current.capture.close();
    if (current.ws.readyState === WebSocket.OPEN) current.ws.send(JSON.stringify({ type: 'stop' }));
    stop.disabled = true;
    status.textContent = 'Finishing the last sentence…';
  });

  async function begin(): Promise<void> {
    if (current) return;
    start.disabled = true;
    errorBox.textContent = '';
    finals.replaceChildren();
    partial.textContent = '';
    download.hidden = true;
    status.textContent = 'Asking for the microphone…';
    let capture: Capture;
    try {
      capture = await openMicrophone();
    } catch (err) {
      status.textContent = '';
      fail(refused(`The browser gave no microphone: ${(err as Error).message || 'permission refused'}.`));
      return idle();
    }
    let token: string;
    try {
      token = (await api<{ token: string }>(csrf, 'POST', '/v1/listen/tokens')).body.token;
    } catch (err) {
      capture.close();
      status.textContent = '';
      fail(err as Refusal);
      return idle();
    }
    const address = new URL('/v1/listen', window.location.href);
    address.protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    address.searchParams.set('token', token);
    if (language.value.trim()) address.searchParams.set('language', language.value.trim());
    const keepAudio = keep.checked;
    if (keepAudio) address.searchParams.set('keep_audio', 'true');

    const ws = new WebSocket(address);
    current = { ws, capture };
    // Audio heard before the stream is open waits, so the first words are not lost.
    const early: ArrayBuffer[] = [];
    capture.onChunk = (pcm) => early.push(pcm);
    let opened = false;
    let closedMessage = false;
    let sessionId = '';
    ws.onmessage = (e: MessageEvent) => {
      if (typeof e.data !== 'string') return;
      const m = JSON.parse(e.data) as ServerMessage;
      if (m.type === 'session') {
        opened = true;
        sessionId = m.id;
        stop.disabled = false;
        status.textContent = 'Listening: speak now.';
        for (const pcm of early.splice(0)) ws.send(pcm);
        capture.onChunk = (pcm) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(pcm);
        };
      } else if (m.type === 'partial') {
        partial.textContent = m.text;
      } else if (m.type === 'final') {
        const item = document.createElement('li');
        const time = document.createElement('span');
        time.className = 'time';
        time.textContent = clock(m.start * 1000);
        item.append(time, ' ', m.text);
        finals.append(item);
        partial.textContent = '';
      } else if (m.type === 'error') {
        fail({ error: m.error, request_id: m.request_id });
      } else if (m.type === 'closed') {
        closedMessage = true;
        status.textContent = `Stopped: ${m.audio_seconds} s of audio, ${m.credits_charged} ${m.credits_charged === 1 ? 'credit' : 'credits'}.`;
        // The kept audio is ready once the stream has ended (GET /v1/listen/sessions/{id}/audio, with the session).
        if (keepAudio && m.audio_seconds > 0) {
          audioLink.href = `/v1/listen/sessions/${encodeURIComponent(sessionId)}/audio`;
          download.hidden = false;
        }
      }
    };
    ws.onclose = () => {
      capture.close();
      partial.textContent = '';
      idle();
      if (!opened) {
        status.textContent = '';
        void refusalOf(csrf, address).then(fail);
      } else if (!closedMessage) status.textContent = 'The stream ended.';
    };
  }
}
