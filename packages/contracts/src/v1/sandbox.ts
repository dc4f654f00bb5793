import { z } from "zod";

/**
 * The sandbox processor's card tokens (`POST /v1/sandbox/confirmation-tokens`, Kassa's own):
 * the hosted checkout turns a test card into a confirmation token, as Stripe.js does.
 */
export const SandboxCard = z
  .object({
    card_number: z.string().min(1).max(40).meta({ example: "4242 4242 4242 4242" }),
    exp_month: z.coerce.number().int().meta({ example: 12 }),
    exp_year: z.coerce.number().int().meta({ example: 2030 }),
    cvc: z.string().min(1).max(10).meta({ example: "123" }),
  })
  .meta({ id: "SandboxCard" });

export const SandboxConfirmationToken = z
  .object({
    id: z.string(),
    expires_at: z.string(),
    card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.number(), exp_year: z.number() }),
  })
  .meta({ id: "SandboxConfirmationToken" });
