// The MCP App of get_transcript and get_video_transcript (api/mcp/app/transcript-app.ts bundles this file with
// the MCP Apps SDK into one HTML resource). A host that supports apps shows it beside the tool result: the
// transcript's segments with times and speakers, and a player (an upload's own file through a signed link,
// or a video platform's embedded player); a click on a segment plays from there. It reads everything from
// the tool result the host hands it, and asks the host to call get_transcript for segments and further pages.
import { App } from '@modelcontextprotocol/ext-apps/app-with-deps';

const MEDIA_META = 'transcript-service/media';
const app = new App({ name: 'Transcript', version: '1.0.0' }, {}, { autoResize: true });

const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
};

function clock(seconds) {
  const s = Math.floor(seconds);
  const pad = (n) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  return `${h ? `${h}:${pad(Math.floor((s % 3600) / 60))}` : Math.floor(s / 60)}:${pad(s % 60)}`;
}

const state = { transcriptId: null, media: null, segments: [], nextOffset: null, player: null };
const root = document.getElementById('app');

/** The player for the media link the tool result carries: seek(seconds) plays from there. */
function playerFor(media) {
  if (!media) return null;
  if (media.kind === 'audio' || media.kind === 'video') {
    const node = el(media.kind, { controls: true, preload: 'metadata', src: media.url, className: 'player' });
    return { node, seek: (t) => ((node.currentTime = t), node.play().catch(() => undefined)) };
  }
  if (media.kind === 'embed') {
    const frame = el('iframe', {
      src: media.url,
      title: 'Video player',
      className: 'player',
      allow: 'autoplay; encrypted-media',
      referrerPolicy: 'strict-origin-when-cross-origin',
    });
    const seek = (t) => {
      const url = new URL(media.url);
      url.searchParams.set('start', String(Math.floor(t)));
      url.searchParams.set('autoplay', '1');
      frame.src = url.toString();
    };
    return { node: frame, seek };
  }
  return null;
}

function render(summary) {
  root.replaceChildren();
  const title = summary?.source?.title ?? summary?.source?.canonical_url ?? 'Transcript';
  const facts = [summary?.language, summary?.duration_seconds != null ? clock(summary.duration_seconds) : null]
    .concat((summary?.speakers ?? []).length ? [`${summary.speakers.length} speakers`] : [])
    .filter(Boolean)
    .join(' · ');
  root.append(el('h1', { textContent: title }), el('p', { className: 'facts', textContent: facts }));
  state.player = playerFor(state.media);
  if (state.player) root.append(state.player.node);
  else if (summary?.source?.canonical_url)
    root.append(
      el(
        'p',
        { className: 'facts' },
        el('a', { href: summary.source.canonical_url, target: '_blank', rel: 'noopener', textContent: 'Open the source' }),
      ),
    );
  const list = el('ol', { className: 'segments' });
  for (const s of state.segments) {
    const time = el('button', { type: 'button', className: 't', textContent: clock(s.start), title: `Play from ${clock(s.start)}` });
    time.dataset.start = String(s.start);
    list.append(
      el(
        'li',
        {},
        time,
        s.speaker ? el('b', { className: 'spk', textContent: s.speaker }) : null,
        el('span', { className: 'seg', textContent: ` ${s.text}` }),
      ),
    );
  }
  root.append(list);
  if (state.nextOffset !== null) {
    const more = el('button', { type: 'button', className: 'more', textContent: 'More segments' });
    more.addEventListener('click', () => void loadSegments(state.nextOffset));
    root.append(more);
  }
}

root.addEventListener('click', (e) => {
  const button = e.target instanceof Element ? e.target.closest('button.t') : null;
  if (button && state.player) state.player.seek(Number(button.dataset.start));
});

/** Takes what a tool result says: its transcript, segments when the page has them, the media link. */
function take(result) {
  const data = result?.structuredContent;
  if (!data?.transcript) return false;
  state.transcriptId = data.transcript.id;
  state.summary = data.transcript;
  state.media = result._meta?.[MEDIA_META] ?? state.media;
  if (data.page?.format === 'segments') {
    state.segments = data.page.offset === 0 ? data.page.segments : state.segments.concat(data.page.segments);
    state.nextOffset = data.page.next_offset;
    return true;
  }
  return false;
}

/** Segments through the host (get_transcript), when the result the app was shown carried text, srt or vtt. */
async function loadSegments(offset) {
  const result = await app.callServerTool({
    name: 'get_transcript',
    arguments: { transcript_id: state.transcriptId, format: 'segments', offset },
  });
  take(result);
  render(state.summary);
}

app.ontoolresult = (result) => {
  if (result.isError) {
    root.replaceChildren(el('p', { className: 'error', textContent: result.content?.[0]?.text ?? 'The tool failed.' }));
    return;
  }
  if (take(result)) render(state.summary);
  else if (state.transcriptId) {
    render(state.summary);
    void loadSegments(0);
  } else root.replaceChildren(el('p', { className: 'facts', textContent: result.content?.[0]?.text ?? 'No transcript yet.' }));
};

void app.connect();
