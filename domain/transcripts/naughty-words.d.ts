// Types for naughty-words (JSON word lists keyed by language code, no types of its own).
declare module 'naughty-words' {
  const lists: Record<string, string[]>;
  export default lists;
}
