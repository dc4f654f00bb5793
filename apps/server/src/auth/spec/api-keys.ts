import { specMessages } from "../messages.js";
import type { HookContext } from "./context.js";

interface VerifyAnswer {
  valid: false;
  error: { code?: unknown; message?: unknown; [k: string]: unknown };
  key: unknown;
}

function isFailedVerification(value: unknown): value is VerifyAnswer {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v.valid === false && !!v.error && typeof v.error === "object" && "key" in v;
}

/**
 * `verifyApiKey` (server only) does not throw: it answers `{valid:false, error:{code, message}}`.
 * The catalogue hook only sees thrown errors, so this one gives that answer the spec's
 * message too (section 8, API key messages), keeping the code.
 */
export async function apiKeyVerification(ctx: HookContext) {
  const returned = ctx.context.returned;
  if (!isFailedVerification(returned)) return;
  const code = returned.error.code;
  if (typeof code !== "string") return;
  const message = specMessages[code];
  if (!message || message === returned.error.message) return;
  return ctx.json({ ...returned, error: { ...returned.error, code, message } });
}
