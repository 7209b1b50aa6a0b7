/** A plain JSON object (not null, not an array): the guard every platform response walk starts with. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
