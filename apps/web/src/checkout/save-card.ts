import type * as W from "@kassa/contracts/v1";
import type { z } from "zod";
import type { StripePaymentHandle } from "./stripe-payment";

type SaveAnswer = z.output<typeof W.CustomerPaymentMethodCreateResponse>;
export type SavedCard = Extract<SaveAnswer, { status: "succeeded" }>;

/**
 * Saves a card (`save`); when the bank asks the customer to confirm it (3-D Secure: the answer
 * is `requires_action`), runs the challenge in the Stripe form (`handle`) and finishes the save
 * with the setup intent's id (`confirm`), as Polar's portal does. Answers the saved card.
 */
export async function saveCard(
  save: () => Promise<SaveAnswer>,
  confirm: (setupIntentId: string) => Promise<SaveAnswer>,
  handle: StripePaymentHandle | null,
): Promise<SavedCard> {
  let answer = await save();
  // The challenge once; a second `requires_action` means the bank did not confirm it.
  if (answer.status === "requires_action") {
    if (!handle)
      throw new Error("Your bank asks you to confirm this card, and the payment form is not open.");
    answer = await confirm(await handle.confirmSetup(answer.client_secret));
  }
  if (answer.status !== "succeeded") throw new Error("Your bank did not confirm the card. Try again.");
  return answer;
}
