import { Radio, Stack } from "@mantine/core";
import type { CheckoutPrice, CheckoutProduct } from "../api";
import { priceLabel } from "../format";

/** The product's prices, when it has more than one. */
export function PriceChoice({
  product,
  prices,
  value,
  error,
  disabled,
  onChoose,
}: {
  product: CheckoutProduct;
  prices: CheckoutPrice[];
  value: string | null;
  error: string | undefined;
  disabled: boolean;
  onChoose: (priceId: string) => void;
}) {
  return (
    <Radio.Group label="Choose a price" value={value ?? ""} onChange={onChoose} error={error}>
      <Stack gap={6} mt="xs">
        {prices.map((p) => (
          <Radio key={p.id} value={p.id} label={priceLabel(p, product)} disabled={disabled} />
        ))}
      </Stack>
    </Radio.Group>
  );
}
