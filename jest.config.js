/** Tests run against the real stack that stack/test.sh starts (env vars point at it). */
module.exports = {
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
    // ESM-only packages (the OAuth server, oidc-provider, and its jose), compiled to CommonJS for jest's module system.
    '/node_modules/(oidc-provider|jose)/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(oidc-provider|jose)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
