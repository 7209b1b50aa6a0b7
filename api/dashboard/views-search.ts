import type { SearchResultView } from '../../domain/schemas/search';

type SearchMode = SearchResultView['mode'];
/** The modes as the search box offers them. */
const SEARCH_MODE_LABELS: [SearchMode, string][] = [
  ['hybrid', 'Words and meaning'],
  ['keyword', 'Exact words'],
  ['semantic', 'Meaning only'],
];
import { html, raw, type SafeHtml } from './html';
import { field } from './layout';
import { clock } from './views-transcript';

/**
 * The search page: the box, and the moments found, each opening the transcript page at its second: the page
 * scrolls to the segment (its anchor, #t<second>, also without script) and the player starts there (dashboard.js).
 */
export function searchBody(
  q: string,
  result: SearchResultView | null,
  refusal: string | null,
  opts: { mode: SearchMode | null; byMeaning: boolean },
): SafeHtml {
  const chosen = opts.mode ?? (opts.byMeaning ? 'hybrid' : 'keyword');
  const modes = html`<select id="mode" name="mode">
    ${SEARCH_MODE_LABELS.map(([m, label]) => html`<option value="${m}" ${m === chosen ? html` selected` : ''}>${label}</option>`)}
  </select>`;
  const form = html`<form method="get" action="/dashboard/search" role="search" class="inline" aria-label="Search transcripts">
    ${field(
      'q',
      opts.byMeaning ? 'What was said, or what it was about' : 'Words said',
      html`<input id="q" name="q" type="search" value="${q}" maxlength="500" required />`,
      opts.byMeaning
        ? 'By meaning too, in any language. For the exact words: phrases in "quotes", word* for a prefix, -word to leave out.'
        : 'Phrases in "quotes", word* for a prefix, -word to leave out.',
    )}
    ${opts.byMeaning ? field('mode', 'Match', modes) : ''}
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
        ? html`<p>
            <a href="/dashboard/search?${new URLSearchParams({ q, mode: result.mode, cursor: result.next_cursor }).toString()}"
              >More moments</a
            >
          </p>`
        : ''
    }`;
}
