import { Group, Radio, Stack, Text } from "@mantine/core";
import type { CheckoutPublic } from "../api";
import { priceLabel, pricesOf } from "../format";

/** The products a checkout offers (more than one), each with its first price. */
export function ProductChoice({
  checkout,
  error,
  disabled,
  onChoose,
}: {
  checkout: CheckoutPublic;
  error: string | undefined;
  disabled: boolean;
  onChoose: (productId: string) => void;
}) {
  return (
    <Radio.Group label="Choose a product" value={checkout.product_id ?? ""} onChange={onChoose} error={error}>
      <Stack gap="xs" mt="xs">
        {checkout.products.map((p) => {
          const first = pricesOf(checkout, p)[0];
          return (
            <Radio.Card key={p.id} value={p.id} p="sm" radius="md" disabled={disabled}>
              <Group wrap="nowrap" justify="space-between">
                <Group wrap="nowrap" gap="sm">
                  <Radio.Indicator />
                  <Text fw={500}>{p.name}</Text>
                </Group>
                <Text size="sm" c="dimmed">
                  {first ? priceLabel(first, p) : ""}
                </Text>
              </Group>
            </Radio.Card>
          );
        })}
      </Stack>
    </Radio.Group>
  );
}
