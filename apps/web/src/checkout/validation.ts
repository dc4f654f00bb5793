import { fractionDigits } from "../features/billing/format";
import { ADDRESS_KEYS, ADDRESS_LABELS, type ShownAddress } from "./address";
import type { CheckoutPublic, CustomPrice } from "./api";
import { cardProblems } from "./card";
import type { Errors } from "./field-errors";
import { formatMoney, parseAmount } from "./format";
import type { Values } from "./values";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A pay-what-you-want amount out of its price's bounds (or not a number); none for another price. */
export function amountProblem(
  text: string,
  custom: CustomPrice | null,
  currency: string,
): string | undefined {
  if (!custom) return undefined;
  const minor = parseAmount(text, fractionDigits(currency));
  const min = custom.minimum_amount ?? 0;
  const max = custom.maximum_amount ?? null;
  if (minor === null) return "Enter an amount, e.g. 10.00.";
  if (minor !== 0 && minor < min) return `The amount is at least ${formatMoney(min, currency)}.`;
  if (minor === 0 && min > 0) return `The amount is at least ${formatMoney(min, currency)}.`;
  if (max !== null && minor > max) return `The amount is at most ${formatMoney(max, currency)}.`;
  return undefined;
}

/** The bounds of a pay-what-you-want amount, as the buyer reads them under the field. */
export function boundsText(min: number, max: number | null, currency: string): string {
  if (max !== null) return `Between ${formatMoney(min, currency)} and ${formatMoney(max, currency)}`;
  return min > 0 ? `At least ${formatMoney(min, currency)}` : "Any amount, or 0 to get it free";
}

/**
 * What the form checks before confirming (the server checks again): the e-mail, the
 * cardholder's name when a payment is due, the business name, the shown address fields that
 * are required, the amount, the required custom fields, and the sandbox card.
 */
export function validate(
  values: Values,
  checkout: CheckoutPublic,
  {
    shownAddress,
    custom,
    stripeMode,
  }: { shownAddress: ShownAddress; custom: CustomPrice | null; stripeMode: boolean },
): Errors {
  const paymentForm = checkout.is_payment_form_required;
  const e: Errors = {};
  const email = values.email.trim();
  if (email === "") e.customer_email = "Enter your e-mail address.";
  else if (!EMAIL.test(email)) e.customer_email = "Enter an e-mail address like name@example.com.";
  if (paymentForm && values.name.trim() === "") e.customer_name = "Enter the cardholder's name.";
  if (values.isBusiness && values.billingName.trim() === "")
    e.customer_billing_name = "Enter the business name.";
  for (const key of ADDRESS_KEYS)
    if (shownAddress[key] && values.address[key].trim() === "")
      e[`customer_billing_address.${key}`] =
        key === "country" ? "Choose your country." : `Enter your ${ADDRESS_LABELS[key].toLowerCase()}.`;
  const amount = amountProblem(values.amount, custom, checkout.currency);
  if (amount) e.amount = amount;
  for (const f of checkout.attached_custom_fields ?? []) {
    if (!f.required) continue;
    const v = values.custom[f.custom_field.slug];
    if (v === undefined || v === false || (typeof v === "string" && v.trim() === ""))
      e[`custom_field_data.${f.custom_field.slug}`] =
        f.custom_field.type === "checkbox" ? "Check this box to continue." : "This field is required.";
  }
  if (paymentForm && !stripeMode) Object.assign(e, cardProblems(values.card));
  return e;
}
