import { Checkbox, TextInput } from "@mantine/core";
import type { AddressKey, ShownAddress } from "../address";
import type { Errors } from "../field-errors";
import type { Values } from "../values";
import { AddressFields } from "./address-fields";

type TextKey = "email" | "name" | "billingName" | "taxId";

/**
 * The buyer: e-mail (read-only when the checkout's customer brought it), name (the
 * cardholder's when a card is asked), "purchasing as a business" with the business name, the
 * billing address, and the business's tax id.
 */
export function CustomerFields({
  values,
  errors,
  disabled,
  emailLocked,
  paymentForm,
  businessPending,
  shownAddress,
  onChange,
  onBusiness,
  onCountry,
  onAddress,
}: {
  values: Values;
  errors: Errors;
  disabled: boolean;
  emailLocked: boolean;
  paymentForm: boolean;
  businessPending: boolean;
  shownAddress: ShownAddress;
  /** A typed value, with the key of its field's message to clear. */
  onChange: (key: TextKey, value: string, errorKey: string) => void;
  onBusiness: (isBusiness: boolean) => void;
  onCountry: (country: string) => void;
  onAddress: (key: AddressKey, value: string) => void;
}) {
  return (
    <>
      <TextInput
        label="E-mail"
        name="customer_email"
        type="email"
        autoComplete="email"
        withAsterisk
        value={values.email}
        error={errors.customer_email}
        disabled={disabled}
        readOnly={emailLocked}
        onChange={(e) => onChange("email", e.currentTarget.value, "customer_email")}
      />
      <TextInput
        label={paymentForm ? "Cardholder name" : "Name"}
        name="customer_name"
        autoComplete="name"
        withAsterisk={paymentForm}
        value={values.name}
        error={errors.customer_name}
        disabled={disabled}
        onChange={(e) => onChange("name", e.currentTarget.value, "customer_name")}
      />
      <Checkbox
        label="I'm purchasing as a business"
        checked={values.isBusiness}
        disabled={disabled || businessPending}
        error={errors.is_business_customer}
        onChange={(e) => onBusiness(e.currentTarget.checked)}
      />
      {values.isBusiness && (
        <TextInput
          label="Business name"
          name="customer_billing_name"
          autoComplete="organization"
          withAsterisk
          value={values.billingName}
          error={errors.customer_billing_name}
          disabled={disabled}
          onChange={(e) => onChange("billingName", e.currentTarget.value, "customer_billing_name")}
        />
      )}
      {Object.keys(shownAddress).length > 0 && (
        <AddressFields
          shown={shownAddress}
          values={values.address}
          errors={errors}
          disabled={disabled}
          onCountry={onCountry}
          onChange={onAddress}
        />
      )}
      {values.isBusiness && (
        <TextInput
          label="Tax ID"
          name="customer_tax_id"
          placeholder="e.g. FR40303265045"
          value={values.taxId}
          error={errors.customer_tax_id}
          disabled={disabled}
          onChange={(e) => onChange("taxId", e.currentTarget.value, "customer_tax_id")}
        />
      )}
    </>
  );
}
