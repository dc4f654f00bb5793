import { createRoute } from "@hono/zod-openapi";
import { SandboxCard, SandboxConfirmationToken } from "@kassa/contracts/v1";
import { clientAddress, type V1App } from "../../../kit/api/env.js";
import { RequestValidationError, TooManyRequests } from "../../../kit/api/errors.js";
import { toValidationIssues } from "../../../kit/api/validation.js";
import type { RateLimiter } from "../../../kit/rate-limit.js";
import { InvalidCard, type SandboxProcessor } from "./processor.js";

/** Fields whose value is never echoed back in an error (a full card number, a CVC). */
const SECRET_FIELDS = new Set(["card_number", "cvc"]);

const createToken = createRoute({
  method: "post",
  path: "/v1/sandbox/confirmation-tokens",
  tags: ["sandbox"],
  summary: "Create a sandbox confirmation token",
  description:
    "Public: the hosted checkout page turns a test card into a single-use token here, where Stripe's page would create a Stripe confirmation token, and confirms the checkout with its `id` as `confirmation_token_id`. Only the brand and the last 4 digits are kept. Available only while Kassa runs on the sandbox processor.",
  request: { body: { required: true, content: { "application/json": { schema: SandboxCard } } } },
  responses: {
    201: {
      description: "Token created",
      content: { "application/json": { schema: SandboxConfirmationToken } },
    },
    422: { description: "A field of the card is invalid (named in `loc`)" },
    429: { description: "Too many tokens from this address (see `Retry-After`)" },
  },
});

export interface SandboxRouteDeps {
  sandbox: SandboxProcessor;
  /** Per client address; undefined when rate limits are off. */
  limiter: RateLimiter | undefined;
  trustProxy: number;
}

export function registerSandboxRoutes(app: V1App, deps: SandboxRouteDeps) {
  app.openapi(
    createToken,
    async (c) => {
      if (deps.limiter) {
        const verdict = await deps.limiter(`sandbox:token:${clientAddress(c, deps.trustProxy)}`);
        if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
      }
      const card = c.req.valid("json");
      try {
        const token = await deps.sandbox.createConfirmationToken(card);
        return c.json(
          {
            id: token.id,
            expires_at: token.expiresAt.toISOString(),
            card: {
              brand: token.card.brand,
              last4: token.card.last4,
              exp_month: token.card.expMonth,
              exp_year: token.card.expYear,
            },
          },
          201,
        );
      } catch (error) {
        if (error instanceof InvalidCard)
          throw new RequestValidationError(
            error.problems.map((p) => ({
              type: "value_error",
              loc: ["body", p.field],
              msg: p.message,
              input: SECRET_FIELDS.has(p.field) ? null : card[p.field],
            })),
          );
        throw error;
      }
    },
    // The shape errors of this body, without the card number or CVC the client sent.
    (result): undefined => {
      if (result.success) return undefined;
      const issues = toValidationIssues(result.error.issues, "body", (result as { data?: unknown }).data);
      throw new RequestValidationError(
        issues.map((i) => (SECRET_FIELDS.has(String(i.loc[1])) ? { ...i, input: null } : i)),
      );
    },
  );
}
