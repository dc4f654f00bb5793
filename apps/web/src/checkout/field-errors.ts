import type { V1Error } from "./api";

/** The form's messages by field: a 422's `loc` joined with dots, a card field, "payment" or "root". */
export type Errors = Record<string, string | undefined>;

/** Card-side refusals: where a 422 of the sandbox token or the confirm goes. */
const CARD_FIELD: Record<string, string> = {
  card_number: "card_number",
  exp_month: "expiry",
  exp_year: "expiry",
  cvc: "cvc",
  confirmation_token_id: "payment",
  // Finishing a card the bank asked to confirm: its refusal is the card's.
  setup_intent_id: "payment",
};

/** A 422's issues by field (`loc` without "body"), joined with dots. */
export function issuesByField(error: Pick<V1Error, "issues">): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.loc.slice(issue.loc[0] === "body" ? 1 : 0).map(String);
    const key = CARD_FIELD[path[0] ?? ""] ?? path.join(".");
    if (!(key in out)) out[key] = issue.msg;
  }
  return out;
}

/** Error keys a field of the form shows; any other one is listed above the button. */
const KNOWN_FIELDS =
  /^(customer_email|customer_name|customer_billing_name|amount|discount_code|customer_tax_id|is_business_customer|product_id|product_price_id|card_number|expiry|cvc|customer_billing_address(\.(country|line1|line2|postal_code|city|state))?|custom_field_data\..+)$/;

/** The messages no field shows ("key: message", joined), or "" when every one has its place. */
export function unplacedErrors(errors: Errors): string {
  return Object.entries(errors)
    .filter(([k, v]) => v && !KNOWN_FIELDS.test(k) && k !== "root" && k !== "payment")
    .map(([k, v]) => `${k}: ${v}`)
    .join(" ");
}
