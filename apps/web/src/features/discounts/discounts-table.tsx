import { Text } from "@mantine/core";
import { IconDiscount } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { Discount } from "../../lib/v1";
import { formatDate, formatMoney } from "../billing/format";
import { SearchedListView, useSearchedListParams } from "../billing/list";
import { EditableName, RowDeleteButton } from "../billing/row-actions";
import { discountsQuery } from "./queries";

export const discountAmount = (d: Discount) =>
  d.type === "percentage"
    ? `${(d.basis_points ?? 0) / 100}% off`
    : `${formatMoney(d.amount ?? 0, d.currency ?? "usd")} off`;

export const discountDuration = (d: Pick<Discount, "duration" | "duration_in_months">) =>
  d.duration === "once" ? "Once" : d.duration === "forever" ? "Forever" : `${d.duration_in_months} months`;

/** The organization's discounts, searched by name or code from the address, a page at a time; names open the editor. */
export function DiscountsTable({
  organizationId,
  canWrite,
  onEdit,
  onDelete,
}: {
  organizationId: string;
  canWrite: boolean;
  onEdit: (discount: Discount) => void;
  onDelete: (discount: Discount) => void;
}) {
  const { query, params } = useSearchedListParams();
  const discounts = useQuery(discountsQuery(organizationId, params));
  return (
    <SearchedListView
      searchPlaceholder="Name or code"
      query={discounts}
      label="discounts"
      caption="Discounts"
      empty={{
        icon: IconDiscount,
        title: query ? "No discount matches" : "No discounts yet",
        children: query
          ? "Change the search to see more."
          : canWrite
            ? "Create a discount and share its code, or limit it to some products and a time window."
            : "An owner or admin of this organization creates discounts.",
      }}
      columns={[
        {
          label: "Name",
          sort: "name",
          render: (d) => (
            <EditableName canWrite={canWrite} onEdit={() => onEdit(d)}>
              {d.name}
            </EditableName>
          ),
        },
        {
          label: "Code",
          sort: "code",
          render: (d) =>
            d.code ? (
              <code>{d.code}</code>
            ) : (
              <Text c="dimmed" size="sm">
                automatic
              </Text>
            ),
        },
        { label: "Amount", render: discountAmount },
        { label: "Duration", sort: "duration", render: discountDuration },
        {
          label: "Redemptions",
          sort: "redemptions_count",
          render: (d) => `${d.redemptions_count}${d.max_redemptions ? ` / ${d.max_redemptions}` : ""}`,
        },
        {
          label: "Valid",
          render: (d) =>
            d.starts_at || d.ends_at
              ? `${formatDate(d.starts_at) || "now"} to ${formatDate(d.ends_at) || "no end"}`
              : "Always",
        },
        {
          label: "Actions",
          render: (d) => (
            <RowDeleteButton show={canWrite} label={`Delete ${d.name}`} onClick={() => onDelete(d)} />
          ),
        },
      ]}
    />
  );
}
