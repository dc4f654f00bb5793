import { Button, Group, Stack } from "@mantine/core";
import { IconExternalLink } from "@tabler/icons-react";
import { AnchorLink } from "../../components/links";
import { PageHeader } from "../../components/states";
import type { Checkout, Price } from "../../lib/v1";
import { AddressBlock, CHECKOUT_STATUS_LABELS, CopyUrl, Details, StatusBadge } from "../billing/commerce";
import { formatDate, formatMoney } from "../billing/format";
import { priceSummary } from "../products/price-summary";

/** One checkout: its amounts, customer and page. */
export function CheckoutDetail({ checkout: c, slug }: { checkout: Checkout; slug: string }) {
  const money = (n: number) => formatMoney(n, c.currency);
  const open = c.status === "open";

  return (
    <Stack gap="lg" maw={900}>
      <AnchorLink to="/dashboard/$slug/checkouts" params={{ slug }} size="sm">
        ← Checkouts
      </AnchorLink>
      <PageHeader
        title={`Checkout for ${c.product?.name ?? "a product"}`}
        description={
          <Group gap="xs" component="span">
            <StatusBadge status={c.status} labels={CHECKOUT_STATUS_LABELS} />
            <span>
              Created {formatDate(c.created_at)}, {open ? "expires" : "expiry"} {formatDate(c.expires_at)}
            </span>
          </Group>
        }
        actions={
          open && (
            <Button
              component="a"
              href={c.url}
              target="_blank"
              rel="noreferrer"
              variant="light"
              rightSection={<IconExternalLink size={16} />}
            >
              Open the checkout page
            </Button>
          )
        }
      />
      {open && <CopyUrl url={c.url} label="Checkout URL" />}
      <Details
        label="Checkout details"
        rows={[
          ["Product", c.product ? String(c.product.name) : "—"],
          // The document gives the embedded price as an open object; the server answers a ProductPrice.
          ["Price", c.product_price ? priceSummary(c.product_price as Price) : "—"],
          ["Amount", money(c.amount)],
          [
            "Discount",
            c.discount_amount > 0
              ? `−${money(c.discount_amount)}${c.discount ? ` (${c.discount.code ?? c.discount.name})` : ""}`
              : "—",
          ],
          ["Tax", c.tax_amount === null ? "Not computed yet" : money(c.tax_amount)],
          ["Total", money(c.total_amount)],
          [
            "Customer",
            c.customer_id ? (
              <AnchorLink
                key="c"
                to="/dashboard/$slug/customers/$customerId"
                params={{ slug, customerId: c.customer_id }}
              >
                {c.customer_name || c.customer_email || "The customer"}
              </AnchorLink>
            ) : (
              [c.customer_name, c.customer_email].filter(Boolean).join(", ") || "Not given yet"
            ),
          ],
          ["Billing address", <AddressBlock key="a" address={c.customer_billing_address} />],
          ["Success URL", c.success_url || "—"],
          ["Discount codes", c.allow_discount_codes ? "Allowed" : "Not allowed"],
        ]}
      />
    </Stack>
  );
}
