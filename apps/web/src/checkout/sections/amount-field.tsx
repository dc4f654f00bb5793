import { Text, TextInput } from "@mantine/core";
import type { CustomPrice } from "../api";
import { boundsText } from "../validation";

/** Pay what you want: the amount in the currency's major unit, with its bounds under it. */
export function AmountField({
  price,
  currency,
  value,
  error,
  disabled,
  onType,
  onDone,
}: {
  price: CustomPrice;
  currency: string;
  value: string;
  error: string | undefined;
  disabled: boolean;
  /** Each keystroke (the page sends the amount once the buyer pauses). */
  onType: (text: string) => void;
  /** The field left: the amount is sent now. */
  onDone: (text: string) => void;
}) {
  return (
    <TextInput
      label="Name a fair price"
      name="amount"
      inputMode="decimal"
      leftSection={<Text size="sm">{currency.toUpperCase()}</Text>}
      leftSectionWidth={52}
      description={boundsText(price.minimum_amount ?? 0, price.maximum_amount ?? null, currency)}
      value={value}
      error={error}
      disabled={disabled}
      onChange={(e) => onType(e.currentTarget.value)}
      onBlur={(e) => onDone(e.currentTarget.value)}
    />
  );
}
