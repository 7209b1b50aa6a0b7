// The dashboard's progressive enhancement, loaded from this origin only (the Content-Security-Policy allows no
// inline script): copy buttons for one-time secrets, confirmation before destructive forms, and a job page that
// follows its job live through GET /v1/jobs/{id}?wait=2 (the REST long poll, which answers at once when the job
// ends, with the session cookie). Every page works without it. Bundled by esbuild (api/dashboard/scripts.ts).
import { attr, clock, closest } from './dom';

/** What the long poll reads of a job (the JobSchema fields the page shows). */
interface JobProgress {
  status: string;
  stage: string | null;
  progress: { transcribed_seconds: number; total_seconds: number } | null;
}

/** What the segments long poll answers (JobSegments). */
interface SegmentsPage {
  status: string;
  segments: Array<{ seq: number; start: number; text: string }>;
  next_after: number;
}

/** The job page's "Transcript so far": segments appended as the job publishes them (GET /v1/jobs/{id}/segments). */
function followSegments(id: string, list: Element): void {
  let after = 0;
  const follow = (): void => {
    if (leaving) return;
    fetch(`/v1/jobs/${encodeURIComponent(id)}/segments?after=${after}&wait=20`, {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    })
      .then((r) => (r.ok ? (r.json() as Promise<SegmentsPage>) : Promise.reject(new Error(String(r.status)))))
      .then((page) => {
        for (const s of page.segments) {
          const li = document.createElement('li');
          const t = document.createElement('span');
          t.className = 't';
          t.textContent = clock(s.start * 1000);
          li.append(t, ` ${s.text}`);
          list.append(li);
        }
        after = page.next_after;
        if (!FINAL.includes(page.status)) setTimeout(follow, 50);
      })
      .catch(() => setTimeout(follow, 5000));
  };
  follow();
}

const FINAL = ['succeeded', 'failed', 'cancelled'];

function copyFrom(input: HTMLInputElement, done: () => void): void {
  const byCommand = () => {
    input.select();
    document.execCommand('copy');
    done();
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(input.value).then(done, byCommand);
  else byCommand();
}

document.addEventListener('click', (e) => {
  const button = closest(e.target, '[data-copy]');
  if (!button) return;
  const id = attr(button, 'data-copy');
  const input = document.getElementById(id);
  const status = document.querySelector(`[data-copied-for="${id}"]`);
  if (!(input instanceof HTMLInputElement)) return;
  copyFrom(input, () => {
    if (status) status.textContent = 'Copied.';
  });
});

// Set once the person submits a form: the page is being replaced, so the live job view must not reload it.
let leaving = false;
document.addEventListener('submit', (e) => {
  const form = e.target;
  if (form instanceof HTMLFormElement && form.hasAttribute('data-confirm') && !window.confirm(attr(form, 'data-confirm'))) {
    e.preventDefault();
    return;
  }
  leaving = true;
});

/** A job page whose job is not final: its status and stage follow the job, and the page reloads once it ends. */
function followJob(job: Element): void {
  const id = attr(job, 'data-job');
  const statusEl = job.querySelector('[data-job-status]');
  const stageEl = job.querySelector('[data-job-stage]');
  const progressEl = document.querySelector('[data-job-progress]');
  const segmentsEl = document.querySelector('[data-job-segments]');
  if (segmentsEl) followSegments(id, segmentsEl);
  let lastStatus: string | null = null;
  const follow = (): void => {
    if (leaving) return;
    fetch(`/v1/jobs/${encodeURIComponent(id)}?wait=2`, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? (r.json() as Promise<JobProgress>) : Promise.reject(new Error(String(r.status)))))
      .then((j) => {
        if (leaving) return;
        if (FINAL.includes(j.status)) {
          window.location.reload();
          return;
        }
        if (j.status !== lastStatus && statusEl) {
          const badge = document.createElement('span');
          badge.className = `badge s-${j.status}`;
          badge.textContent = j.status.replace('_', ' ');
          statusEl.replaceChildren(badge);
          lastStatus = j.status;
        }
        if (stageEl) stageEl.textContent = j.stage || '—';
        if (progressEl && j.progress)
          progressEl.textContent = `${Math.round(j.progress.transcribed_seconds)} of ${Math.round(j.progress.total_seconds)} s transcribed.`;
        setTimeout(follow, 100);
      })
      .catch(() => setTimeout(follow, 5000));
  };
  follow();
}

/**
 * The transcript page's player: the word being said is marked (aria-current) while the media plays, and a
 * click on a word, on a segment's time or on a chapter's seeks there.
 */
function followPlayer(player: HTMLMediaElement): void {
  const timed = Array.from(document.querySelectorAll('.w[data-start]'));
  const starts = timed.map((w) => parseFloat(attr(w, 'data-start')));
  let current: Element | null = null;
  const mark = (): void => {
    const t = player.currentTime;
    // The last word that started at or before t (words are in time order): a binary search.
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const candidate = found >= 0 ? timed[found]! : null;
    const word = candidate && t <= parseFloat(attr(candidate, 'data-end')) + 0.3 ? candidate : null;
    if (word === current) return;
    current?.removeAttribute('aria-current');
    word?.setAttribute('aria-current', 'true');
    current = word;
  };
  player.addEventListener('timeupdate', mark);
  player.addEventListener('seeked', mark);
  document.addEventListener('click', (e) => {
    const target = closest(e.target, '.w[data-start], .segments li[data-start] a.t, .chapters li[data-start] a.t');
    if (!target) return;
    const at = target.hasAttribute('data-start') ? target : target.closest('li[data-start]');
    if (!at) return;
    e.preventDefault();
    player.currentTime = parseFloat(attr(at, 'data-start'));
    if (player.paused) player.play().catch(() => undefined);
  });
}

/** A link to a moment (`?t=<seconds>`, from search) starts the player there. */
function startAt(player: HTMLMediaElement): void {
  const t = Number(new URLSearchParams(location.search).get('t'));
  if (!Number.isFinite(t) || t <= 0) return;
  const seek = (): void => {
    player.currentTime = t;
  };
  if (player.readyState >= 1) seek();
  else player.addEventListener('loadedmetadata', seek, { once: true });
}

const job = document.querySelector('[data-job]');
if (job && job.getAttribute('data-final') === 'false') followJob(job);
const player = document.querySelector('[data-player]');
if (player instanceof HTMLMediaElement) {
  followPlayer(player);
  startAt(player);
}
