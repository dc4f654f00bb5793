import { Text } from "@mantine/core";
import { IconReceiptTax } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { numberFormat } from "../../lib/intl";
import { formatDate } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { EditableName, RowDeleteButton } from "../billing/row-actions";
import { type TaxRate, taxRatesQuery } from "./queries";

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: "region" });
  } catch {
    return null;
  }
})();

/** A country by its name in the viewer's language with its code ("France (FR)"); an unknown code as it is. */
export function countryName(code: string): string {
  let name: string | undefined;
  try {
    name = regionNames?.of(code.toUpperCase());
  } catch {
    name = undefined;
  }
  return name && name !== code ? `${name} (${code})` : code;
}

/**
 * A rate as a percentage in the viewer's locale ("8.875%"), every decimal the API keeps (up to 4).
 * The percent unit formats the number as it is, so nothing is divided by 100 in floating point.
 */
export function formatRate(rate: string): string {
  const n = Number(rate);
  if (!Number.isFinite(n)) return `${rate}%`;
  return numberFormat({ style: "unit", unit: "percent", maximumFractionDigits: 4 }).format(n);
}

/** The organization's tax rates, a page at a time by the address; countries open the editor. */
export function TaxRatesTable({
  organizationId,
  canWrite,
  onEdit,
  onDelete,
}: {
  organizationId: string;
  canWrite: boolean;
  onEdit: (rate: TaxRate) => void;
  onDelete: (rate: TaxRate) => void;
}) {
  const { search, page, limit } = useListParams();
  const rates = useQuery(taxRatesQuery(organizationId, { page, limit, sorting: search.sorting }));
  return (
    <ListView
      query={rates}
      label="tax rates"
      caption="Tax rates"
      empty={{
        icon: IconReceiptTax,
        title: "No tax rates yet",
        children: canWrite
          ? "A tax rate adds a percentage of the net amount (after discounts) to the checkouts of buyers from its country; buyers from a country without a rate pay no tax. Add one rate per country with New tax rate."
          : "A tax rate adds a percentage of the net amount to the checkouts of buyers from its country. An owner or admin of this organization adds them.",
      }}
      columns={[
        {
          label: "Country",
          sort: "country",
          render: (r) => (
            <EditableName canWrite={canWrite} onEdit={() => onEdit(r)}>
              {countryName(r.country)}
            </EditableName>
          ),
        },
        {
          label: "Name",
          render: (r) =>
            r.display_name ?? (
              <Text c="dimmed" size="sm">
                none
              </Text>
            ),
        },
        { label: "Rate", render: (r) => formatRate(r.rate) },
        { label: "Created", sort: "created_at", render: (r) => formatDate(r.created_at) },
        { label: "Updated", render: (r) => formatDate(r.modified_at) || "never" },
        {
          label: "Actions",
          render: (r) => (
            <RowDeleteButton
              show={canWrite}
              label={`Delete the tax rate of ${countryName(r.country)}`}
              onClick={() => onDelete(r)}
            />
          ),
        },
      ]}
    />
  );
}
