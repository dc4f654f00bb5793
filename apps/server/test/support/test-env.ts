/**
 * Environment variables Better Auth reads to switch its origin and CSRF checks off:
 * NODE_ENV=test (read once, when @better-auth/core/env is first imported) and TEST (read when
 * an auth instance is created). vitest sets both in its workers.
 */
export const TEST_ENV_VARIABLES = ["NODE_ENV", "TEST"] as const;
