import { Paper, Stack, Table, Text } from "@mantine/core";
import { formatDate } from "../../lib/format";
import { formatMoney } from "../billing/format";
import type { PreviewOrder } from "./queries";

/** One previewed order: when, its lines (prorations marked), its discount and tax, and its total. */
export function PreviewOrderCard({
  title,
  order,
  none,
}: {
  title: string;
  order: PreviewOrder | null;
  none: string;
}) {
  return (
    <Paper withBorder radius="md" p="sm" aria-label={title} role="region">
      <Stack gap={6}>
        <Text fw={600} size="sm">
          {title}
        </Text>
        {order ? (
          <>
            <Text size="sm" c="dimmed">
              {formatDate(order.at)}
            </Text>
            <Table withRowBorders={false} verticalSpacing={2} fz="sm">
              <Table.Tbody>
                {order.items.map((item, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one preview keep their order
                  <Table.Tr key={i}>
                    <Table.Td>
                      {item.label}
                      {item.proration && (
                        <Text span size="xs" c="dimmed">
                          {" "}
                          (prorated)
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">{formatMoney(item.amount, order.currency)}</Table.Td>
                  </Table.Tr>
                ))}
                {order.discount_amount !== 0 && (
                  <Table.Tr>
                    <Table.Td>Discount</Table.Td>
                    <Table.Td ta="right">−{formatMoney(order.discount_amount, order.currency)}</Table.Td>
                  </Table.Tr>
                )}
                {order.tax_amount !== 0 && (
                  <Table.Tr>
                    <Table.Td>Tax</Table.Td>
                    <Table.Td ta="right">{formatMoney(order.tax_amount, order.currency)}</Table.Td>
                  </Table.Tr>
                )}
                <Table.Tr>
                  <Table.Td fw={600}>Total</Table.Td>
                  <Table.Td ta="right" fw={600}>
                    {formatMoney(order.total_amount, order.currency)}
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {none}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
