// Text normalisation shared by the caption parsers (integrations/platforms)
// and the cue builder: the leaf module integrations may import.
export { normaliseText, normaliseLine, neutraliseArrows } from './segments';
