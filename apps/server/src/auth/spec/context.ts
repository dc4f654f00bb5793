import type { createAuthMiddleware } from "better-auth/api";

/** The context Better Auth passes to a hook handler. */
export type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

export const bodyOf = (ctx: HookContext): Record<string, unknown> =>
  ctx.body && typeof ctx.body === "object" ? (ctx.body as Record<string, unknown>) : {};
