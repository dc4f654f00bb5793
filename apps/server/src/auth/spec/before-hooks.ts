import type { BetterAuthPlugin } from "better-auth";
import { specMessages } from "../messages.js";

type BeforeHook = NonNullable<NonNullable<BetterAuthPlugin["hooks"]>["before"]>[number];

/**
 * An error thrown by a plugin's `before` hook (e.g. the username plugin's checks on
 * `/sign-up/email` and `/update-user`) ends the request before any `after` hook runs, so the
 * catalogue hook never sees it. This gives such errors the spec's message (section 8) on the
 * way out, keeping the error itself (status, code, headers) unchanged.
 */
function withSpecMessage(hook: BeforeHook): BeforeHook {
  const original = hook.handler;
  const handler = (async (...args: Parameters<typeof original>) => {
    try {
      return await original(...args);
    } catch (error) {
      const body = (error as { body?: { code?: unknown; message?: unknown } } | null)?.body;
      const message = typeof body?.code === "string" ? specMessages[body.code] : undefined;
      if (body && message && body.message !== message) {
        body.message = message;
        (error as Error).message = message;
      }
      throw error;
    }
  }) as typeof original;
  return { ...hook, handler };
}

/** The same plugin, its `before` hooks answering with the spec's messages. */
export function withSpecMessagesInBeforeHooks<P extends BetterAuthPlugin>(plugin: P): P {
  const before = plugin.hooks?.before;
  if (!before?.length) return plugin;
  return { ...plugin, hooks: { ...plugin.hooks, before: before.map(withSpecMessage) } };
}
