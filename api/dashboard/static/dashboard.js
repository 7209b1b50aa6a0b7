// The dashboard's progressive enhancement, loaded from this origin only (the
// Content-Security-Policy allows no inline script): copy buttons for one-time
// secrets, confirmation before destructive forms, and a job page that follows
// its job live through GET /v1/jobs/{id}?wait=2 (the REST long poll, which answers at once when the job ends, with the
// session cookie). Every page works without it.
(function () {
  'use strict';

  document.addEventListener('click', function (e) {
    var button = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
    if (!button) return;
    var input = document.getElementById(button.getAttribute('data-copy'));
    var status = document.querySelector('[data-copied-for="' + button.getAttribute('data-copy') + '"]');
    if (!input) return;
    var done = function () {
      if (status) status.textContent = 'Copied.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(input.value).then(done, function () {
        input.select();
        document.execCommand('copy');
        done();
      });
    } else {
      input.select();
      document.execCommand('copy');
      done();
    }
  });

  // Set once the person submits a form: the page is being replaced, so the live job view must not reload it.
  var leaving = false;
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (form instanceof HTMLFormElement && form.hasAttribute('data-confirm') && !window.confirm(form.getAttribute('data-confirm'))) {
      e.preventDefault();
      return;
    }
    leaving = true;
  });

  var job = document.querySelector('[data-job]');
  if (job && job.getAttribute('data-final') === 'false') {
    var id = job.getAttribute('data-job');
    var statusEl = job.querySelector('[data-job-status]');
    var stageEl = job.querySelector('[data-job-stage]');
    var lastStatus = null;
    var follow = function () {
      if (leaving) return;
      fetch('/v1/jobs/' + encodeURIComponent(id) + '?wait=2', { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (r) {
          return r.ok ? r.json() : Promise.reject(r.status);
        })
        .then(function (j) {
          if (leaving) return;
          if (['succeeded', 'failed', 'cancelled'].indexOf(j.status) >= 0) {
            window.location.reload();
            return;
          }
          if (j.status !== lastStatus && statusEl) {
            statusEl.innerHTML = '';
            var badge = document.createElement('span');
            badge.className = 'badge s-' + j.status;
            badge.textContent = j.status.replace('_', ' ');
            statusEl.appendChild(badge);
            lastStatus = j.status;
          }
          if (stageEl) stageEl.textContent = j.stage || '—';
          setTimeout(follow, 100);
        })
        .catch(function () {
          setTimeout(follow, 5000);
        });
    };
    follow();
  }

  // The transcript page's player: the word being said is marked (aria-current) while the media plays, and a
  // click on a word or on a segment's time seeks there.
  var player = document.querySelector('[data-player]');
  if (player) {
    var timed = Array.prototype.slice.call(document.querySelectorAll('.w[data-start]'));
    var starts = timed.map(function (w) {
      return parseFloat(w.getAttribute('data-start'));
    });
    var current = null;
    var mark = function () {
      var t = player.currentTime;
      // The last word that started at or before t (words are in time order): a binary search.
      var lo = 0;
      var hi = starts.length - 1;
      var found = -1;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (starts[mid] <= t) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      var word = found >= 0 && t <= parseFloat(timed[found].getAttribute('data-end')) + 0.3 ? timed[found] : null;
      if (word === current) return;
      if (current) current.removeAttribute('aria-current');
      if (word) word.setAttribute('aria-current', 'true');
      current = word;
    };
    player.addEventListener('timeupdate', mark);
    player.addEventListener('seeked', mark);
    document.addEventListener('click', function (e) {
      var target = e.target instanceof Element ? e.target.closest('.w[data-start], .segments li[data-start] a.t') : null;
      if (!target) return;
      var at = target.hasAttribute('data-start') ? target : target.closest('li[data-start]');
      e.preventDefault();
      player.currentTime = parseFloat(at.getAttribute('data-start'));
      if (player.paused) player.play().catch(function () {});
    });
  }
})();
