import { escapeHtml } from '../../core/text';
// The dashboard's only template mechanism: a tagged template that escapes every
// interpolated value unless it is already markup made by `html` (or `raw` for a
// trusted constant). No template language to learn, type-checked by tsc, no
// dependency; a value can only reach a page as text.

const MARK = Symbol('safe-html');

export interface SafeHtml {
  readonly [MARK]: true;
  readonly text: string;
}

export { escapeHtml };

const isSafe = (v: unknown): v is SafeHtml => typeof v === 'object' && v !== null && MARK in v;

/** Interpolated values: SafeHtml as is; arrays joined; null, undefined and false as nothing; everything else escaped. */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (isSafe(value)) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return { [MARK]: true, text: out };
}

/** Markup the code itself wrote (never a value from a request or the database). */
export function raw(text: string): SafeHtml {
  return { [MARK]: true, text };
}
