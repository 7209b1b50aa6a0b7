// Small typed look-ups the dashboard's scripts share.

/** An attribute the page's markup always renders (an empty string when it is missing). */
export const attr = (el: Element, name: string): string => el.getAttribute(name) ?? '';

/** The nearest element from an event's target matching a selector. */
export const closest = (target: EventTarget | null, selector: string): Element | null =>
  target instanceof Element ? target.closest(selector) : null;

/** An element of the page the script cannot work without, of the type it must be. */
export function required<T extends Element>(root: ParentNode, selector: string, type: new () => T): T {
  const el = root.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`The page has no ${type.name} at ${selector}.`);
  return el;
}

/** A span of milliseconds as m:ss or h:mm:ss, as a player shows it. */
export function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (h ? `${h}:${pad(m)}` : String(m)) + ':' + pad(s % 60);
}
