import { APIError } from "better-auth/api";
import { specMessages } from "../messages.js";
import type { HookContext } from "./context.js";

export function isAPIErrorLike(value: unknown): value is APIError {
  return (
    value instanceof APIError || (value instanceof Error && (value as { name?: string }).name === "APIError")
  );
}

/** An error answer with the spec's words for a catalogue code. */
export function specError(status: ConstructorParameters<typeof APIError>[0], code: string): APIError {
  return new APIError(status, { code, message: specMessages[code] ?? code });
}

/** Whether the endpoint answered with an error: lets the catalogue skip every success cheaply. */
export const answeredWithError = (ctx: { context?: { returned?: unknown } }) =>
  isAPIErrorLike(ctx.context?.returned);

/** Rewrites the message of any error answer to the spec's catalogue, keeping the code. */
export async function catalogue(ctx: HookContext) {
  const returned = ctx.context.returned;
  if (!isAPIErrorLike(returned)) return;
  const body = returned.body as { code?: string; message?: string } | undefined;
  const code = body?.code;
  if (!code) return;
  const message = specMessages[code];
  if (!message || message === body?.message) return;
  throw new APIError(returned.status, { ...body, code, message }, returned.headers);
}
