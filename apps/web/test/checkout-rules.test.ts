// @vitest-environment node
import { describe, expect, it } from "vitest";
import { addressBody, addressFields } from "../src/checkout/address";
import {
  type AttachedCustomField,
  type CheckoutPrice,
  type CheckoutProduct,
  type CheckoutPublic,
  type CustomPrice,
  V1Error,
} from "../src/checkout/api";
import { cardProblems } from "../src/checkout/card";
import { issuesByField, unplacedErrors } from "../src/checkout/field-errors";
import { checkoutInterval, confirmLabel } from "../src/checkout/format";
import { amountProblem, boundsText, validate } from "../src/checkout/validation";
import {
  confirmBody,
  customFieldValue,
  customPriceOf,
  initialValues,
  type Values,
} from "../src/checkout/values";

/** The checkout page's pure rules: which fields it asks, what it checks, what it sends. */

const NOW = "2026-11-22T12:00:00.000Z";

const fixed: CheckoutPrice = {
  id: "price-fixed",
  created_at: NOW,
  modified_at: null,
  source: "catalog",
  amount_type: "fixed",
  price_currency: "usd",
  tax_behavior: null,
  is_archived: false,
  product_id: "prod-1",
  type: "one_time",
  recurring_interval: null,
  price_amount: 2500,
};
const custom: CustomPrice = {
  ...fixed,
  id: "price-custom",
  amount_type: "custom",
  minimum_amount: 500,
  maximum_amount: 10000,
  preset_amount: null,
};

function product(over: Partial<CheckoutProduct> = {}): CheckoutProduct {
  return {
    id: "prod-1",
    created_at: NOW,
    modified_at: null,
    trial_interval: null,
    trial_interval_count: null,
    name: "Pro license",
    description: null,
    visibility: "public",
    is_recurring: false,
    is_archived: false,
    recurring_interval: null,
    recurring_interval_count: null,
    meter_interval: null,
    meter_interval_count: null,
    organization_id: "org-1",
    prices: [fixed],
    benefits: [],
    medias: [],
    ...over,
  };
}

function field(
  slug: string,
  type: AttachedCustomField["custom_field"]["type"],
  required: boolean,
): AttachedCustomField {
  return {
    custom_field_id: `f-${slug}`,
    order: 0,
    required,
    // The type and its properties go together, which the union cannot see here.
    custom_field: {
      id: `f-${slug}`,
      created_at: NOW,
      modified_at: null,
      metadata: {},
      organization_id: "org-1",
      type,
      slug,
      name: slug,
      properties: {},
    } as AttachedCustomField["custom_field"],
  };
}

function checkout(over: Partial<CheckoutPublic> = {}): CheckoutPublic {
  const p = over.product ?? product();
  // As the server answers them: a full address when the seller asks for one, else the country.
  const full = over.require_billing_address ?? false;
  const billing_address_fields: CheckoutPublic["billing_address_fields"] = {
    country: "required",
    line1: full ? "required" : "disabled",
    line2: full ? "optional" : "disabled",
    postal_code: full ? "required" : "disabled",
    city: full ? "required" : "disabled",
    state: full ? "optional" : "disabled",
  };
  return {
    id: "checkout-1",
    created_at: NOW,
    modified_at: null,
    embed_origin: null,
    tax_behavior: null,
    allow_trial: null,
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    organization_id: "org-1",
    customer_ip_address: null,
    locale: null,
    billing_address_fields,
    custom_field_data: {},
    status: "open",
    client_secret: "secret",
    url: "http://localhost/checkout/secret",
    expires_at: "2026-11-22T12:00:00.000Z",
    success_url: "http://localhost/checkout/secret/confirmation",
    return_url: null,
    amount: 2500,
    discount_amount: 0,
    net_amount: 2500,
    tax_amount: 0,
    total_amount: 2500,
    currency: "usd",
    product_id: p.id,
    product_price_id: fixed.id,
    discount_id: null,
    allow_discount_codes: true,
    require_billing_address: false,
    is_discount_applicable: true,
    is_free_product_price: false,
    is_payment_required: true,
    is_payment_setup_required: false,
    is_payment_form_required: true,
    customer_id: null,
    is_business_customer: false,
    customer_name: null,
    customer_email: null,
    customer_billing_name: null,
    customer_billing_address: null,
    customer_tax_id: null,
    payment_processor: "stripe",
    payment_processor_metadata: {},
    products: [p],
    product: p,
    product_price: fixed,
    prices: null,
    discount: null,
    organization: {
      created_at: NOW,
      modified_at: null,
      id: "org-1",
      name: "Acme Tools",
      slug: "acme",
      avatar_url: null,
      proration_behavior: "invoice",
      allow_customer_updates: true,
    },
    attached_custom_fields: [],
    ...over,
  };
}

const GOOD_CARD = { number: "4242 4242 4242 4242", expiry: "12 / 30", cvc: "123" };

function values(c: CheckoutPublic, over: Partial<Values> = {}): Values {
  return { ...initialValues(c), email: "buyer@example.com", name: "Ada", card: GOOD_CARD, ...over };
}

describe("which billing address fields the checkout page asks", () => {
  it("none for a free checkout of a person, the country alone for a payment or a business", () => {
    const free = checkout({ is_payment_form_required: false });
    expect(addressFields(free, false)).toEqual({});
    expect(addressFields(free, true)).toEqual({ country: true });
    expect(addressFields(checkout(), false)).toEqual({ country: true });
  });

  it("the full address when the seller requires one (line 2 and state optional), or as the checkout says", () => {
    const full = checkout({ require_billing_address: true });
    expect(addressFields(full, false)).toEqual({
      country: true,
      line1: true,
      line2: false,
      postal_code: true,
      city: true,
      state: false,
    });
    const told = checkout({
      billing_address_fields: {
        country: "required",
        line1: "disabled",
        line2: "disabled",
        postal_code: "optional",
        city: "disabled",
        state: "required",
      },
    });
    expect(addressFields(told, false)).toEqual({ country: true, postal_code: false, state: true });
  });

  it("sends no address without a country, and only the shown fields, trimmed, when filled", () => {
    const address = {
      country: "",
      line1: "1 rue",
      line2: "",
      postal_code: " 75001 ",
      city: "Paris",
      state: "",
    };
    expect(addressBody(address, { country: true, line1: true })).toBeNull();
    expect(
      addressBody({ ...address, country: "FR" }, { country: true, postal_code: true, line2: false }),
    ).toEqual({ country: "FR", postal_code: "75001" });
  });
});

describe("a pay-what-you-want amount", () => {
  it("is checked against its price's bounds, in the currency", () => {
    expect(amountProblem("abc", null, "usd")).toBeUndefined();
    expect(amountProblem("abc", custom, "usd")).toBe("Enter an amount, e.g. 10.00.");
    expect(amountProblem("", custom, "usd")).toBe("Enter an amount, e.g. 10.00.");
    expect(amountProblem("4.99", custom, "usd")).toBe("The amount is at least $5.00.");
    expect(amountProblem("0", custom, "usd")).toBe("The amount is at least $5.00.");
    expect(amountProblem("100.01", custom, "usd")).toBe("The amount is at most $100.00.");
    expect(amountProblem("12,50", custom, "usd")).toBeUndefined();
    expect(amountProblem("0", { ...custom, minimum_amount: 0, maximum_amount: null }, "usd")).toBeUndefined();
  });

  it("says its bounds under the field", () => {
    expect(boundsText(500, 10000, "usd")).toBe("Between $5.00 and $100.00");
    expect(boundsText(500, null, "usd")).toBe("At least $5.00");
    expect(boundsText(0, null, "usd")).toBe("Any amount, or 0 to get it free");
  });

  it("starts at the checkout's amount in major units, only for a custom price", () => {
    expect(customPriceOf(checkout())).toBeNull();
    const c = checkout({ product_price: custom, amount: 1250 });
    expect(customPriceOf(c)).toBe(custom);
    expect(initialValues(c).amount).toBe("12.5");
    expect(initialValues(checkout()).amount).toBe("");
  });
});

describe("what the form checks before confirming", () => {
  const options = { shownAddress: {}, custom: null, stripeMode: false };

  it("nothing more for a filled form", () => {
    const c = checkout();
    expect(validate(values(c), c, { ...options, shownAddress: { country: true } })).toEqual({
      "customer_billing_address.country": "Choose your country.",
    });
    expect(validate(values(c, { address: { ...values(c).address, country: "FR" } }), c, options)).toEqual({});
  });

  it("the e-mail, the cardholder's name and the sandbox card when a payment is due", () => {
    const c = checkout();
    const empty = { ...values(c), email: " ", name: "", card: { number: "", expiry: "", cvc: "" } };
    expect(validate(empty, c, options)).toEqual({
      customer_email: "Enter your e-mail address.",
      customer_name: "Enter the cardholder's name.",
      card_number: "Enter your card number.",
      expiry: "Enter the expiry date (MM / YY).",
      cvc: "Enter the security code.",
    });
    expect(validate({ ...empty, email: "nobody" }, c, { ...options, stripeMode: true })).toEqual({
      customer_email: "Enter an e-mail address like name@example.com.",
      customer_name: "Enter the cardholder's name.",
    });
    const free = checkout({ is_payment_form_required: false });
    expect(validate({ ...empty, email: "a@b.co" }, free, options)).toEqual({});
  });

  it("the business name, the required address fields, the amount and the required custom fields", () => {
    const c = checkout({
      product_price: custom,
      attached_custom_fields: [
        field("terms", "checkbox", true),
        field("size", "text", true),
        field("note", "text", false),
      ],
    });
    const v = values(c, {
      isBusiness: true,
      amount: "1",
      address: { country: "FR", line1: " ", line2: "", postal_code: "", city: "Paris", state: "" },
      custom: { terms: false, size: "  " },
    });
    expect(
      validate(v, c, {
        ...options,
        custom,
        shownAddress: { country: true, line1: true, line2: false, postal_code: true },
      }),
    ).toEqual({
      customer_billing_name: "Enter the business name.",
      "customer_billing_address.line1": "Enter your address.",
      "customer_billing_address.postal_code": "Enter your postal code.",
      amount: "The amount is at least $5.00.",
      "custom_field_data.terms": "Check this box to continue.",
      "custom_field_data.size": "This field is required.",
    });
  });

  it("a sandbox card's number, expiry and code", () => {
    const now = new Date("2026-11-22T12:00:00Z");
    expect(cardProblems(GOOD_CARD, now)).toEqual({});
    expect(cardProblems({ number: "4242", expiry: "10 / 26", cvc: "12" }, now)).toEqual({
      card_number: "Your card number is incomplete.",
      expiry: "Your card's expiry date is in the past.",
      cvc: "The security code is 3 or 4 digits.",
    });
  });
});

describe("the confirm request", () => {
  it("trims what was typed, and sends the business's details only for a business", () => {
    const c = checkout();
    const v = values(c, {
      email: " buyer@example.com ",
      name: "  ",
      billingName: "Acme",
      taxId: " FR40303265045 ",
      address: { country: "FR", line1: "1 rue", line2: "", postal_code: "75001", city: "Paris", state: "" },
    });
    expect(confirmBody(v, c, { country: true })).toEqual({
      customer_email: "buyer@example.com",
      customer_name: null,
      is_business_customer: false,
      customer_billing_address: { country: "FR" },
    });
    expect(confirmBody({ ...v, isBusiness: true }, c, { country: true, city: true })).toEqual({
      customer_email: "buyer@example.com",
      customer_name: null,
      is_business_customer: true,
      customer_billing_address: { country: "FR", city: "Paris" },
      customer_tax_id: "FR40303265045",
      customer_billing_name: "Acme",
    });
  });

  it("the amount in minor units, a discount code not yet applied, and the custom fields by type", () => {
    const fields = [
      field("terms", "checkbox", true),
      field("seats", "number", false),
      field("note", "text", false),
    ];
    const c = checkout({ product_price: custom, attached_custom_fields: fields });
    const v = values(c, {
      amount: "12.50",
      discountCode: " LAUNCH ",
      custom: { terms: true, seats: "3", note: " " },
    });
    expect(confirmBody(v, c, {})).toEqual({
      customer_email: "buyer@example.com",
      customer_name: "Ada",
      is_business_customer: false,
      amount: 1250,
      discount_code: "LAUNCH",
      custom_field_data: { terms: true, seats: 3 },
    });
    const discounted = checkout({
      discount: {
        id: "d1",
        name: "Launch",
        code: "LAUNCH",
        type: "percentage",
        duration: "once",
        basis_points: 2500,
      },
    });
    expect(confirmBody(v, discounted, {}).discount_code).toBeUndefined();
  });

  it("a custom field's value as its type sends it", () => {
    expect(customFieldValue(field("a", "checkbox", false), undefined)).toBe(false);
    expect(customFieldValue(field("a", "number", false), " 4.5 ")).toBe(4.5);
    expect(customFieldValue(field("a", "date", false), "2026-11-22")).toBe("2026-11-22");
    expect(customFieldValue(field("a", "select", false), "")).toBeNull();
  });
});

describe("refusals at their fields", () => {
  it("a 422's issues by field, the card's under the card fields, the first message of a field kept", () => {
    const error = new V1Error(422, "RequestValidationError", "Invalid", [
      {
        type: "value_error",
        loc: ["body", "customer_billing_address", "country"],
        msg: "Unknown country",
        input: null,
      },
      { type: "value_error", loc: ["body", "exp_month"], msg: "Bad month", input: null },
      { type: "value_error", loc: ["body", "exp_year"], msg: "Bad year", input: null },
      { type: "value_error", loc: ["body", "confirmation_token_id"], msg: "Declined", input: null },
      { type: "value_error", loc: ["customer_email"], msg: "Bad e-mail", input: null },
    ]);
    expect(issuesByField(error)).toEqual({
      "customer_billing_address.country": "Unknown country",
      expiry: "Bad month",
      payment: "Declined",
      customer_email: "Bad e-mail",
    });
  });

  it("the messages no field shows, listed by their key", () => {
    expect(unplacedErrors({ customer_email: "x", root: "y", payment: "z", "custom_field_data.a": "w" })).toBe(
      "",
    );
    expect(unplacedErrors({ subscription_id: "Already subscribed", metadata: undefined, amount: "x" })).toBe(
      "subscription_id: Already subscribed",
    );
  });
});

describe("the button's words and the total's period", () => {
  it("pay, subscribe, confirm or get it free", () => {
    expect(confirmLabel(checkout())).toBe("Pay $25.00");
    const monthly = product({ is_recurring: true, recurring_interval: "month" });
    expect(confirmLabel(checkout({ product: monthly }))).toBe("Subscribe · $25.00/month");
    const quarterly = product({
      is_recurring: true,
      recurring_interval: "month",
      recurring_interval_count: 3,
    });
    expect(checkoutInterval(checkout({ product: quarterly }))).toBe(" every 3 months");
    expect(checkoutInterval(checkout())).toBe("");
    const noForm = { is_payment_form_required: false };
    expect(confirmLabel(checkout({ ...noForm, total_amount: 0 }))).toBe("Get it free");
    expect(confirmLabel(checkout({ ...noForm, is_free_product_price: true }))).toBe("Get it free");
    expect(confirmLabel(checkout(noForm))).toBe("Confirm");
  });
});
