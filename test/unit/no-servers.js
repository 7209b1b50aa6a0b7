// The unit tier runs without the stack (jest.unit.config.js): the settings that would point at it are
// removed, so a test that tried to reach PostgreSQL, Temporal or the object store fails at once.
for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'DATA_DIR', 'TEMPORAL_DB_FILE', 'STRIPE_API_BASE']) delete process.env[name];
