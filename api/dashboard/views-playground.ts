import { CAPTION_CREDITS, DEFAULT_MAX_CREDITS, MINIMUM_BILLABLE_SECONDS, TRANSCRIBE_CREDITS_PER_MINUTE } from '../../core/plans';
import { MAX_SPEAKERS_EXPECTED, MAX_VOCABULARY_TERMS, MODES, RECOGNITION_PROFILES } from '../../domain/schemas/jobs';
import { html, type SafeHtml } from './html';
import { field } from './layout';
import { RULE_PII_TYPES } from '../../domain/transcripts/redaction';
import { LISTEN_SECONDS_PER_CREDIT } from '../../domain/listen/sessions';

export interface PlaygroundFacts {
  creditsRemaining: number;
  /** AI transcription is switched on for this service (capabilities `asr_enabled`): files and the AI modes are offered. */
  asrEnabled: boolean;
  /** The workspace's plan may use AI transcription: otherwise the AI modes say so and a file cannot be chosen. */
  aiAllowed: boolean;
  /** A real-time recognizer is configured (RECOGNIZER_STREAM_URL): the microphone section is offered. */
  listenEnabled: boolean;
}

const MODE_LABELS: Record<(typeof MODES)[number], string> = {
  auto: 'auto: captions when the video has them, AI transcription otherwise',
  captions_only: 'captions only',
  transcribe: 'transcribe: AI transcription of the audio',
};

/**
 * The "New transcript" page: a form that builds one POST /v1/jobs request (and, for a file, the upload
 * before it), the price before paying, and the same request as curl, TypeScript and Python beside it.
 * playground.js does the work in the browser with the session (X-CSRF-Token), exactly as an integration
 * would with a key; the fields carry their API names (`data-field`), so the code shown is the request sent.
 */
export function playgroundBody(facts: PlaygroundFacts): SafeHtml {
  const price = `AI transcription costs ${TRANSCRIBE_CREDITS_PER_MINUTE} credits per started minute (at least ${MINIMUM_BILLABLE_SECONDS} seconds are billed); a caption transcript costs ${CAPTION_CREDITS} credit.`;
  return html`<noscript
      ><p class="error">
        This page needs JavaScript: it uploads files from your browser and follows the job live. Without it, use the API (see
        <a href="/docs">the reference</a>).
      </p></noscript
    >
    <p>You have <strong data-credits>${facts.creditsRemaining}</strong> credits. ${price}</p>
    <div class="playground">
      <form
        id="playground"
        class="pg-form"
        novalidate
        data-default-max-credits="${DEFAULT_MAX_CREDITS}"
        data-credits-per-minute="${TRANSCRIBE_CREDITS_PER_MINUTE}"
      >
        <fieldset>
          <legend>Source</legend>
          <label class="check"><input type="radio" name="source_kind" value="url" checked /> A link</label>
          ${
            facts.asrEnabled
              ? facts.aiAllowed
                ? html`<label class="check"><input type="radio" name="source_kind" value="upload" /> A file from this computer</label>`
                : html`<label class="check"
                      ><input type="radio" name="source_kind" value="upload" disabled aria-describedby="pg-paid-hint" /> A file from this
                      computer</label
                    >
                    <p class="hint" id="pg-paid-hint">
                      Files are transcribed by AI, which needs a paid plan (<a href="/dashboard/billing">Billing</a>).
                    </p>`
              : ''
          }
          <div data-when="url">
            ${field(
              'pg-url',
              'Link to a video or a media file',
              html`<input
                id="pg-url"
                type="url"
                maxlength="2048"
                placeholder="https://www.youtube.com/watch?v=…"
                aria-describedby="pg-url-hint"
                data-field="source.url"
              />`,
              'A YouTube, TikTok, Instagram, X or Facebook video, or a direct https link to an audio or video file.',
            )}
          </div>
          ${
            facts.asrEnabled
              ? html`<div data-when="upload" hidden>
                  <div class="field drop" data-drop>
                    <label for="pg-file">Audio or video file (at most 250 MB, 2 hours): choose one or drop it here</label>
                    <input id="pg-file" type="file" accept="audio/*,video/*" />
                  </div>
                  <div class="field">
                    <label for="pg-progress">Upload</label>
                    <progress id="pg-progress" max="100" value="0">0 %</progress>
                    <span data-upload-status role="status" class="hint"></span>
                  </div>
                </div>`
              : ''
          }
        </fieldset>
        ${field(
          'pg-mode',
          'Mode',
          html`<select id="pg-mode" data-field="mode">
            ${MODES.filter((m) => facts.asrEnabled || m === 'captions_only').map(
              (m) =>
                html`<option value="${m}" ${m === (facts.aiAllowed ? 'auto' : 'captions_only') ? html` selected` : ''}>
                  ${MODE_LABELS[m]}${m !== 'captions_only' && !facts.aiAllowed ? ' (paid plans)' : ''}
                </option>`,
            )}
          </select>`,
        )}
        <div data-when-mode="captions_only auto">
          ${field(
            'pg-caption-languages',
            'Caption languages (optional)',
            html`<input
              id="pg-caption-languages"
              placeholder="en, de"
              aria-describedby="pg-caption-languages-hint"
              data-field="caption_languages"
              data-list="comma"
            />`,
            'Up to 5 language tags, in order of preference, separated by commas.',
          )}
          <label class="check"
            ><input type="checkbox" data-field="word_timing" /> Word timing: align the captions to the audio (paid plans; priced as AI
            transcription)</label
          >
        </div>
        ${field(
          'pg-language',
          'Spoken language (optional)',
          html`<input id="pg-language" maxlength="35" placeholder="detected" aria-describedby="pg-language-hint" data-field="language" />`,
          'A language tag such as en or pt-BR. Leave it empty to detect it from the audio.',
        )}
        <div data-when-mode="auto transcribe">
          ${field(
            'pg-profile',
            'Recognition profile',
            html`<select id="pg-profile" data-field="profile">
              <option value="">default (standard)</option>
              ${RECOGNITION_PROFILES.map((p) => html`<option value="${p}">${p}</option>`)}
            </select>`,
          )}
          <label class="check"><input type="checkbox" id="pg-speakers" data-field="speaker_labels" /> Label speakers</label>
          <div data-when-checked="pg-speakers" hidden>
            ${field(
              'pg-speakers-expected',
              'Number of speakers (optional)',
              html`<input
                id="pg-speakers-expected"
                type="number"
                min="1"
                max="${MAX_SPEAKERS_EXPECTED}"
                inputmode="numeric"
                data-field="speakers_expected"
                data-number
              />`,
            )}
          </div>
          ${field(
            'pg-vocabulary',
            'Vocabulary (optional)',
            html`<textarea
              id="pg-vocabulary"
              rows="3"
              aria-describedby="pg-vocabulary-hint"
              data-field="vocabulary"
              data-list="lines"
            ></textarea>`,
            `Names and terms the recognizer should prefer, one per line (at most ${MAX_VOCABULARY_TERMS}).`,
          )}
        </div>
        <label class="check"><input type="checkbox" data-field="filter_profanity" /> Mask profanity (free of charge)</label>
        <label class="check"
          ><input type="checkbox" data-field="disfluencies" data-checked-value="false" /> Drop fillers (“um”, “euh”) and repeated words
          (free of charge)</label
        >
        <label class="check"
          ><input type="checkbox" data-field="redact_pii" /> Redact personal data: e-mail addresses, phone, card and IBAN numbers (free of
          charge)</label
        >
        <fieldset class="checks" data-default-kinds="${RULE_PII_TYPES.join(',')}">
          <legend>With them, when redacting (in the languages the capabilities list)</legend>
          <label class="check"><input type="checkbox" data-field="redact_pii_types" data-item="person" /> Names of people</label>
          <label class="check"><input type="checkbox" data-field="redact_pii_types" data-item="address" /> Street addresses</label>
          <label class="check"><input type="checkbox" data-field="redact_pii_types" data-item="id" /> ID numbers</label>
        </fieldset>
        <label class="check"
          ><input type="checkbox" data-field="chapters" /> Chapters: the video’s own, or found from what is said (free of charge)</label
        >
        <label class="check"
          ><input type="checkbox" data-field="summarize" /> Summary: a few sentences and key points, and a sentence per chapter (free of
          charge)</label
        >
        ${field(
          'pg-translate-to',
          'Translate into (optional)',
          html`<input
            id="pg-translate-to"
            type="text"
            placeholder="a language tag, e.g. pt"
            autocomplete="off"
            spellcheck="false"
            aria-describedby="pg-translate-to-hint"
            data-field="translate_to"
          />`,
          'The transcript also in this language, a text per segment (free of charge). Capabilities list the pairs.',
        )}
        ${field(
          'pg-max-credits',
          'Spending cap in credits (optional)',
          html`<input
            id="pg-max-credits"
            type="number"
            min="1"
            inputmode="numeric"
            placeholder="${DEFAULT_MAX_CREDITS} (two hours)"
            aria-describedby="pg-max-credits-hint"
            data-field="max_credits"
            data-number
          />`,
          'A job that would cost more fails before anything is charged.',
        )}
        <p data-quote aria-live="polite" class="quote"></p>
        <div data-error role="alert" tabindex="-1"></div>
        <button type="submit" data-submit>Start transcript</button>
      </form>
      <section class="pg-code" aria-labelledby="pg-code-h">
        <h2 id="pg-code-h">The same request in code</h2>
        <p class="hint">
          With an API key in <code>TRANSCRIPT_API_KEY</code> (create one under API keys). It follows the form as you fill it in.
        </p>
        ${(['curl', 'typescript', 'python'] as const).map(
          (lang) =>
            html`<h3 id="pg-code-${lang}-h">${lang === 'curl' ? 'curl' : lang === 'typescript' ? 'TypeScript' : 'Python'}</h3>
              <div class="code">
                <pre tabindex="0" aria-labelledby="pg-code-${lang}-h"><code data-code="${lang}"></code></pre>
                <button type="button" data-copy-code="${lang}" aria-label="Copy the ${lang} code">Copy</button>
              </div>`,
        )}
      </section>
    </div>
    ${facts.listenEnabled ? listenSection(facts) : ''}`;
}

/**
 * "Speak": the browser's microphone transcribed in real time through GET /v1/listen (browser/listen.ts), the
 * way a browser integration does it: a token minted by POST /v1/listen/tokens, then the WebSocket.
 */
function listenSection(facts: PlaygroundFacts): SafeHtml {
  return html`<section class="pg-listen" data-listen aria-labelledby="pg-listen-h">
    <h2 id="pg-listen-h">Speak: your microphone, transcribed as you talk</h2>
    <p class="hint">
      Real-time transcription through <code>GET /v1/listen</code>: ${TRANSCRIBE_CREDITS_PER_MINUTE} credits a minute, counted by the second
      (1 credit for each ${LISTEN_SECONDS_PER_CREDIT} s, no minimum). The audio is not kept.
    </p>
    ${
      facts.aiAllowed
        ? ''
        : html`<p class="hint" id="pg-listen-paid-hint">
            Real-time transcription needs a paid plan (<a href="/dashboard/billing">Billing</a>).
          </p>`
    }
    ${field(
      'pg-listen-language',
      'Language you will speak (optional)',
      html`<input
        id="pg-listen-language"
        maxlength="35"
        placeholder="detected"
        autocomplete="off"
        spellcheck="false"
        aria-describedby="pg-listen-language-hint"
      />`,
      'A language tag such as en. Leave it empty to detect it from the first sentence.',
    )}
    <label class="check"
      ><input type="checkbox" id="pg-listen-keep" /> Keep the audio, to download it afterwards (free; kept as long as your plan keeps
      transcripts)</label
    >
    <div class="actions">
      <button type="button" data-listen-start ${facts.aiAllowed ? '' : html`disabled aria-describedby="pg-listen-paid-hint"`}>
        Start listening
      </button>
      <button type="button" data-listen-stop disabled>Stop</button>
    </div>
    <p data-listen-status role="status" class="hint"></p>
    <div data-listen-error role="alert" tabindex="-1"></div>
    <div class="listen-transcript" role="log" aria-label="What was heard">
      <ol data-listen-finals></ol>
      <p data-listen-partial class="partial" aria-live="off"></p>
    </div>
    <p data-listen-download hidden><a data-listen-audio href="/dashboard/new" download>Download the audio</a></p>
  </section>`;
}
