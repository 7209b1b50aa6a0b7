import type { SearchResultView } from '../../domain/schemas/search';
import { html, raw, type SafeHtml } from './html';
import { field } from './layout';
import { clock } from './views-transcript';

/**
 * The search page: the box, and the moments found, each opening the transcript page at its second: the page
 * scrolls to the segment (its anchor, #t<second>, also without script) and the player starts there (dashboard.js).
 */
export function searchBody(q: string, result: SearchResultView | null, refusal: string | null): SafeHtml {
  const form = html`<form method="get" action="/dashboard/search" role="search" class="inline" aria-label="Search transcripts">
    ${field('q', 'Words said', html`<input id="q" name="q" type="search" value="${q}" maxlength="500" required />`, 'Phrases in "quotes", word* for a prefix, -word to leave out.')}
    <button type="submit">Search</button>
  </form>`;
  if (refusal)
    return html`${form}
      <p role="alert">${refusal}</p>`;
  if (!result) return form;
  if (result.moments.length === 0)
    return html`${form}
      <p>Nothing in your transcripts matches “${q}”.</p>`;
  return html`${form}
    <ol class="moments" aria-label="Moments found">
      ${result.moments.map(
        (m) =>
          html`<li>
            <p>
              <a href="/dashboard/transcripts/${m.transcript_id}?t=${Math.floor(m.start)}#t${Math.floor(m.start)}"
                >${m.source.title ?? m.source.media_id}</a
              >
              at
              ${clock(m.start)}–${clock(m.end)}${m.speaker ? html` · speaker ${m.speaker}` : ''}${m.language ? html` · ${m.language}` : ''}
            </p>
            <blockquote>${raw(m.highlighted_text)}</blockquote>
          </li>`,
      )}
    </ol>
    ${
      result.next_cursor
        ? html`<p><a href="/dashboard/search?${new URLSearchParams({ q, cursor: result.next_cursor }).toString()}">More moments</a></p>`
        : ''
    }`;
}
