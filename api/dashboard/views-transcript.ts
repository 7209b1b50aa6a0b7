// The transcript page's body: the player, segments with times, words shaded by confidence, exports, delete.
import type { TranscriptView } from '../../domain/transcripts/read';
import { EXPORT_FORMATS } from '../../domain/transcripts/export';
import { html, type SafeHtml } from './html';
import { csrfField, time } from './layout';

export function clock(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${h ? `${h}:` : ''}${pad(m)}:${pad(s)}`;
}

// One line of markup per word, so the text between words is exactly one space.
// prettier-ignore
const wordSpan = (w: { start: number; end: number; text: string; confidence: number }) =>
  html`<span class="w c${band(w.confidence)}" data-start="${w.start}" data-end="${w.end}" title="confidence ${w.confidence.toFixed(2)}">${w.text}</span>`;

/** Confidence bands for shading; the legend names them, so colour is never the only carrier. */
function band(confidence: number): 0 | 1 | 2 | 3 {
  return confidence < 0.5 ? 0 : confidence < 0.7 ? 1 : confidence < 0.9 ? 2 : 3;
}

/**
 * The transcript page. With `media` (an upload's file, still stored) a player sits above the text: the word
 * being said is highlighted while it plays, and a click on a word or a time seeks to it (dashboard.js; the
 * page reads the same without script). Speakers, where labelled, name their segments.
 */
const TRANSLATION_ORIGIN_LABELS = {
  platform: 'The video platform’s own translation of the caption track.',
  machine: 'Translated by the service’s machine translation model.',
  provider: 'Translated by the translation provider of this deployment.',
} as const;

export function transcriptBody(t: TranscriptView, csrf: string, media: { contentType: string } | null = null): SafeHtml {
  const words = t.words ?? [];
  let wi = 0;
  const segments = t.segments.map((s) => {
    const mine: typeof words = [];
    // Words belong to the segment their start falls in (both are sorted by time).
    while (wi < words.length && words[wi]!.start < s.end + 1e-6) mine.push(words[wi++]!);
    const text = mine.length > 0 ? html`${mine.map((w, i) => html`${i ? ' ' : ''}${wordSpan(w)}`)}` : html`${s.text}`;
    return html`<li data-start="${s.start}">
      <a class="t" href="#t${Math.floor(s.start)}" id="t${Math.floor(s.start)}"
        ><time datetime="PT${s.start.toFixed(3)}S">${clock(s.start)}</time>–<time datetime="PT${s.end.toFixed(3)}S"
          >${clock(s.end)}</time
        ></a
      >
      ${s.speaker ? html`<b class="spk" title="speaker ${s.speaker}">${s.speaker}</b>` : ''}
      ${s.language && s.language !== t.language ? html`<span class="lang" lang="${s.language}">${s.language}</span>` : ''}
      ${
        t.alignment && s.match !== null && s.match < t.alignment.match_threshold
          ? html`<span class="nomatch" title="match ${s.match}">not heard</span>`
          : ''
      }
      <span class="seg" ${s.language ? html` lang="${s.language}"` : ''}>${text}</span>
    </li>`;
  });
  const check = t.caption_language_check;
  // A chapter links to the first segment that starts in it (the text's anchors), and with a player seeks there.
  const chapters = (t.chapters ?? []).map((c) => {
    const first = t.segments.find((s) => s.end > c.start) ?? t.segments.at(-1);
    return html`<li data-start="${c.start}">
      <a class="t" href="#t${Math.floor(first?.start ?? 0)}"><time datetime="PT${c.start.toFixed(3)}S">${clock(c.start)}</time></a>
      <span class="chapter-title">${c.title}</span>
      ${c.origin === 'platform' ? html`<span class="origin" title="the video's own chapter">from the video</span>` : ''}
    </li>`;
  });
  return html`<dl class="facts">
      <div>
        <dt>Source</dt>
        <dd>
          ${t.source.canonical_url ? html`<a href="${t.source.canonical_url}" rel="noopener noreferrer">${t.source.title ?? t.source.canonical_url}</a>` : (t.source.title ?? t.source.media_id ?? '—')}
        </dd>
      </div>
      <div>
        <dt>Language</dt>
        <dd>${t.language ?? '—'}</dd>
      </div>
      <div>
        <dt>Origin</dt>
        <dd>${t.source_origin.replace('_', ' ')}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>${t.duration_seconds !== null ? clock(t.duration_seconds) : '—'}</dd>
      </div>
      <div>
        <dt>Kept until</dt>
        <dd>${time(t.expires_at)}</dd>
      </div>
      ${
        t.recognition
          ? html`<div>
              <dt>Model</dt>
              <dd>${t.recognition.model} (${t.recognition.quality_status.replace(/_/g, ' ')}, ${t.recognition.profile} profile)</dd>
            </div>`
          : ''
      }
      ${
        t.languages.length > 1
          ? html`<div>
              <dt>Languages</dt>
              <dd>${t.languages.map((l, i) => html`${i ? ', ' : ''}${l.language} ${clock(l.seconds)}`)}</dd>
            </div>`
          : ''
      }
      ${
        t.speakers
          ? html`<div>
              <dt>Speakers</dt>
              <dd>
                ${
                  t.speakers.length === 0
                    ? 'none found'
                    : t.speakers.map((p, i) => html`${i ? '; ' : ''}<b class="spk">${p.id}</b> ${p.words} words, ${clock(p.seconds)}`)
                }
              </dd>
            </div>`
          : ''
      }
      ${
        t.alignment
          ? html`<div>
              <dt>Word timing</dt>
              <dd>
                ${t.alignment.method === 'word_timing' ? 'captions aligned to the audio' : 'your text aligned to the audio'} by
                ${t.alignment.model};
                ${
                  t.alignment.segments_below_threshold === 0
                    ? 'every segment is heard'
                    : html`<strong>${t.alignment.segments_below_threshold} of ${t.segments.length} segments not heard</strong> (marked
                        below)`
                }
              </dd>
            </div>`
          : ''
      }
      ${
        check && check.matches === false
          ? html`<div>
              <dt>Caption label</dt>
              <dd>The platform labels this track <code>${check.label ?? '—'}</code>; its text is <code>${check.detected ?? '—'}</code>.</dd>
            </div>`
          : ''
      }
    </dl>
    ${
      media
        ? html`<h2>Media</h2>
            ${
              media.contentType.startsWith('video/')
                ? html`<video controls preload="metadata" src="/dashboard/transcripts/${t.id}/media" data-player></video>`
                : html`<audio controls preload="metadata" src="/dashboard/transcripts/${t.id}/media" data-player></audio>`
            }`
        : ''
    }
    ${
      t.redacted_audio
        ? html`<h2>Redacted audio</h2>
            <p class="legend">The audio with a tone over the ${t.redacted_audio.tone_spans} stretch(es) where personal data was said.</p>
            <audio controls preload="none" src="/dashboard/transcripts/${t.id}/redacted-audio" class="redacted-audio"></audio>`
        : ''
    }
    <h2>Download</h2>
    <ul class="downloads">
      ${EXPORT_FORMATS.filter((f) => f !== 'chapters' || t.chapters).map(
        (f) =>
          html`<li>
            <a href="/v1/transcripts/${t.id}/export?format=${f}" download
              >${f === 'chapters' ? 'Chapters (WebVTT)' : f.toUpperCase()}${
                t.timing_granularity === 'none' && (f === 'srt' || f === 'vtt') ? ' (needs timestamps)' : ''
              }</a
            >
          </li>`,
      )}
      ${
        t.translation && t.timing_granularity !== 'none'
          ? (['srt', 'vtt'] as const).map(
              (f) =>
                html`<li>
                  <a href="/v1/transcripts/${t.id}/export?format=${f}&amp;translated=true" download
                    >${f.toUpperCase()} in ${t.translation!.language}</a
                  >
                </li>`,
            )
          : ''
      }
    </ul>
    ${
      t.chapters
        ? html`<h2>Chapters</h2>
            ${
              chapters.length > 0
                ? html`<ol class="chapters">
                    ${chapters}
                  </ol>`
                : html`<p>None: the transcript is shorter than three minutes.</p>`
            }`
        : ''
    }
    ${
      t.summary
        ? html`<h2>Summary</h2>
            <section class="summary" lang="${t.language ?? ''}">
              <p>${t.summary.text}</p>
              ${
                t.summary.key_points.length > 0
                  ? html`<ul class="key-points">
                      ${t.summary.key_points.map((p) => html`<li>${p}</li>`)}
                    </ul>`
                  : ''
              }
              ${
                t.summary.chapters.some((c) => c.summary)
                  ? html`<ol class="chapter-summaries">
                      ${t.summary.chapters.map((c) =>
                        c.summary
                          ? html`<li>
                              <a class="t" href="#t${Math.floor(c.start)}"
                                ><time datetime="PT${c.start.toFixed(3)}S">${clock(c.start)}</time></a
                              >
                              <strong>${c.title}</strong>: ${c.summary}
                            </li>`
                          : '',
                      )}
                    </ol>`
                  : ''
              }
              <p class="legend">
                Written by ${t.summary.model}; every sentence and point is checked against the transcript for names and numbers.
              </p>
            </section>`
        : ''
    }
    <h2>Text</h2>
    ${
      words.length > 0
        ? html`<p class="legend">
            Words are shaded by the recognizer’s confidence: <span class="w c3">90 % or more</span> <span class="w c2">70–90 %</span>
            <span class="w c1">50–70 %</span> <span class="w c0">under 50 %</span> (hover or focus a word for its value).
          </p>`
        : ''
    }
    <ol class="segments">
      ${segments}
    </ol>
    ${
      t.translation
        ? html`<h2>Translation (${t.translation.language})</h2>
            <p class="legend">${TRANSLATION_ORIGIN_LABELS[t.translation.origin]}</p>
            <ol class="segments translation" lang="${t.translation.language}">
              ${t.translation.segments.map(
                (s) =>
                  html`<li>
                    <a class="t" href="#t${Math.floor(s.start)}"><time datetime="PT${s.start.toFixed(3)}S">${clock(s.start)}</time></a>
                    <span class="seg">${s.text}</span>
                  </li>`,
              )}
            </ol>`
        : ''
    }
    <h2>Delete</h2>
    <form
      method="post"
      action="/dashboard/transcripts/${t.id}/delete"
      data-confirm="Delete this transcript? It is hidden at once and purged."
    >
      ${csrfField(csrf)}<button type="submit" class="danger">Delete transcript</button>
    </form>`;
}
