import { fractionDigits } from "../features/billing/format";
import { type AddressValues, addressBody, type ShownAddress } from "./address";
import type {
  AttachedCustomField,
  CheckoutConfirm,
  CheckoutPublic,
  CustomFieldValue,
  CustomPrice,
} from "./api";
import { type CardValues, EMPTY_CARD } from "./card";
import { parseAmount } from "./format";

/** What the buyer types, as typed; `confirmBody` makes the request of it. */
export interface Values {
  email: string;
  name: string;
  isBusiness: boolean;
  billingName: string;
  address: AddressValues;
  taxId: string;
  amount: string;
  discountCode: string;
  custom: Record<string, string | boolean>;
  card: CardValues;
}

/** The checkout's price when the buyer names the amount (pay what you want), else null. */
export function customPriceOf(c: CheckoutPublic): CustomPrice | null {
  const price = c.product_price;
  return price?.amount_type === "custom" ? price : null;
}

/** The form as the checkout fills it (a prefilled e-mail, a stored address, the amount). */
export function initialValues(c: CheckoutPublic): Values {
  const a = c.customer_billing_address;
  const custom: Record<string, string | boolean> = {};
  for (const f of c.attached_custom_fields ?? []) {
    const v = c.custom_field_data?.[f.custom_field.slug];
    custom[f.custom_field.slug] =
      f.custom_field.type === "checkbox" ? v === true : v === null || v === undefined ? "" : String(v);
  }
  return {
    email: c.customer_email ?? "",
    name: c.customer_name ?? "",
    isBusiness: c.is_business_customer,
    billingName: c.customer_billing_name ?? "",
    address: {
      country: a?.country ?? "",
      line1: a?.line1 ?? "",
      line2: a?.line2 ?? "",
      postal_code: a?.postal_code ?? "",
      city: a?.city ?? "",
      state: a?.state ?? "",
    },
    taxId: c.customer_tax_id ?? "",
    amount: customPriceOf(c) ? String(c.amount / 10 ** fractionDigits(c.currency)) : "",
    discountCode: c.discount?.code ?? "",
    custom,
    card: EMPTY_CARD,
  };
}

/** A custom field's value as sent: a checkbox's boolean, a number, a trimmed text, or null if empty. */
export function customFieldValue(
  field: AttachedCustomField,
  value: string | boolean | undefined,
): CustomFieldValue {
  const type = field.custom_field.type;
  if (type === "checkbox") return value === true;
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") return null;
  if (type === "number") return Number(text);
  return text;
}

/** The confirm request of the form's values (the payment's token is added by the page). */
export function confirmBody(values: Values, checkout: CheckoutPublic, shown: ShownAddress): CheckoutConfirm {
  const body: CheckoutConfirm = {
    customer_email: values.email.trim(),
    customer_name: values.name.trim() || null,
    is_business_customer: values.isBusiness,
  };
  const address = addressBody(values.address, shown);
  if (address) body.customer_billing_address = address;
  if (values.isBusiness && values.taxId.trim() !== "") body.customer_tax_id = values.taxId.trim();
  if (values.isBusiness && values.billingName.trim() !== "")
    body.customer_billing_name = values.billingName.trim();
  if (customPriceOf(checkout)) {
    const minor = parseAmount(values.amount, fractionDigits(checkout.currency));
    if (minor !== null) body.amount = minor;
  }
  const code = values.discountCode.trim();
  if (code !== "" && !checkout.discount) body.discount_code = code;
  const fields = checkout.attached_custom_fields ?? [];
  if (fields.length > 0) {
    const data: Record<string, CustomFieldValue> = {};
    for (const f of fields) {
      const v = customFieldValue(f, values.custom[f.custom_field.slug]);
      if (v !== null) data[f.custom_field.slug] = v;
    }
    body.custom_field_data = data;
  }
  return body;
}
