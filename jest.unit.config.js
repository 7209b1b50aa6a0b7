/**
 * The unit tier (`npm run test:unit`): parsers, formats, text, timing, errors
 * and the other tests under test/unit/, which start no server (no PostgreSQL,
 * Temporal or recognizer) and need none: seconds. `npm test` runs them too,
 * with everything else (jest.config.js).
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/unit'],
  // Nothing of the throw-away stack is there: a unit test that reached for it would fail at once.
  setupFiles: ['<rootDir>/test/unit/no-servers.js'],
};
