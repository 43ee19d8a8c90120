import { defineConfig } from 'vitest/config';

// The gateway processes the tests start inherit this environment: a SWITCHYARD_HOST / SWITCHYARD_PORT
// exported in the developer's shell would otherwise win over every test's own server.host and port.
for (const name of ['SWITCHYARD_HOST', 'SWITCHYARD_PORT', 'SWITCHYARD_CONFIG', 'SWITCHYARD_WORKERS']) delete process.env[name];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
