import type { Address, CheckoutPublic } from "./api";

/** The billing address's fields, in the order the form shows them. */
export const ADDRESS_KEYS = ["country", "line1", "line2", "postal_code", "city", "state"] as const;
export type AddressKey = (typeof ADDRESS_KEYS)[number];
export type AddressValues = Record<AddressKey, string>;
/** The address fields the form shows, each `true` when required. */
export type ShownAddress = Partial<Record<AddressKey, boolean>>;

export const ADDRESS_LABELS: Record<AddressKey, string> = {
  country: "Country",
  line1: "Address",
  line2: "Address line 2",
  postal_code: "Postal code",
  city: "City",
  state: "State / province",
};

/**
 * Which address fields the form shows (true: required), by the checkout's
 * `billing_address_fields`: an address is asked when a payment is due, when the seller wants
 * one, or for a business.
 */
export function addressFields(c: CheckoutPublic, isBusiness: boolean): ShownAddress {
  if (!c.is_payment_form_required && !c.require_billing_address && !isBusiness) return {};
  const full = c.require_billing_address;
  const out: ShownAddress = {};
  for (const key of ADDRESS_KEYS) {
    const fallback =
      key === "country"
        ? "required"
        : !full
          ? "disabled"
          : key === "line2" || key === "state"
            ? "optional"
            : "required";
    const mode = c.billing_address_fields?.[key] ?? fallback;
    if (mode !== "disabled") out[key] = mode === "required";
  }
  return out;
}

/** The address as sent: none without a country; only the shown fields, trimmed, when filled. */
export function addressBody(address: AddressValues, shown: ShownAddress): Address | null {
  if (!address.country) return null;
  const out: Address = { country: address.country };
  for (const key of ADDRESS_KEYS)
    if (key !== "country" && shown[key] !== undefined && address[key].trim() !== "")
      out[key] = address[key].trim();
  return out;
}
