/**
 * A wait of at most `ms` that also ends when `signal` aborts (at once when it already has): what a request's
 * long poll, an upload's verification and a tool's wait race their result against. `ended` resolves either
 * way; `stop()` clears the timer and the abort listener once the caller has its result, so a loop of waits on
 * one signal (a tool's wait, step after step) does not pile listeners on it.
 */
export function timeoutOrAbort(ms: number, signal?: AbortSignal): { ended: Promise<void>; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    timer = setTimeout(resolve, ms);
    onAbort = () => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const stop = () => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  };
  return { ended, stop };
}
