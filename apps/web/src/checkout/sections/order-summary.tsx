import { Divider, Group, Paper, Stack, Text } from "@mantine/core";
import type { CheckoutPublic } from "../api";
import { discountLabel, formatMoney } from "../format";

/** The totals as the server last computed them: subtotal, discount, tax and total (also on the confirmation page). */
export function Summary({ checkout, interval }: { checkout: CheckoutPublic; interval: string }) {
  const money = (n: number) => formatMoney(n, checkout.currency);
  return (
    <Paper withBorder p="md" radius="md" aria-label="Order summary" component="section">
      <Stack gap={6}>
        <Row label="Subtotal" value={money(checkout.amount)} testId="subtotal" />
        {checkout.discount && (
          <Row
            label={`Discount (${checkout.discount.name}: ${discountLabel(checkout)})`}
            value={`−${money(checkout.discount_amount)}`}
            testId="discount"
          />
        )}
        <Row
          label="Tax"
          value={checkout.tax_amount === null ? "Calculated at payment" : money(checkout.tax_amount)}
          testId="tax"
        />
        <Divider />
        <Group justify="space-between" wrap="nowrap">
          <Text fw={700}>Total</Text>
          <Text fw={700} data-testid="total">
            {money(checkout.total_amount)}
            {interval && (
              <Text span c="dimmed" fw={500}>
                {interval}
              </Text>
            )}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}

function Row({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId}>
        {value}
      </Text>
    </Group>
  );
}
