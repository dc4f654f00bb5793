import { Group, NativeSelect, Stack, Text, TextInput } from "@mantine/core";
import { useMemo } from "react";
import { ADDRESS_LABELS, type AddressKey, type AddressValues, type ShownAddress } from "../address";
import { countryOptions } from "../countries";
import type { Errors } from "../field-errors";

/** The billing address's shown fields (an asterisk on the required ones), in a fieldset. */
export function AddressFields({
  shown,
  values,
  errors,
  disabled,
  onCountry,
  onChange,
}: {
  shown: ShownAddress;
  values: AddressValues;
  errors: Errors;
  disabled: boolean;
  onCountry: (country: string) => void;
  onChange: (key: AddressKey, value: string) => void;
}) {
  const countries = useMemo(() => countryOptions(), []);
  const err = (key: AddressKey) =>
    errors[`customer_billing_address.${key}`] ??
    (key === "country" ? errors.customer_billing_address : undefined);
  const input = (key: Exclude<AddressKey, "country">, autoComplete: string) =>
    shown[key] !== undefined && (
      <TextInput
        label={ADDRESS_LABELS[key]}
        name={`customer_billing_address.${key}`}
        autoComplete={autoComplete}
        withAsterisk={shown[key]}
        value={values[key]}
        error={err(key)}
        disabled={disabled}
        onChange={(e) => onChange(key, e.currentTarget.value)}
      />
    );
  return (
    <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
      <Text component="legend" size="sm" fw={500} p={0}>
        Billing address
      </Text>
      {shown.country !== undefined && (
        <NativeSelect
          label="Country"
          name="customer_billing_address.country"
          autoComplete="country"
          withAsterisk={shown.country}
          value={values.country}
          error={err("country")}
          disabled={disabled}
          data={[{ value: "", label: "Choose a country" }, ...countries]}
          onChange={(e) => onCountry(e.currentTarget.value)}
        />
      )}
      {input("line1", "address-line1")}
      {input("line2", "address-line2")}
      <Group grow align="flex-start">
        {input("postal_code", "postal-code")}
        {input("city", "address-level2")}
      </Group>
      {input("state", "address-level1")}
    </Stack>
  );
}
