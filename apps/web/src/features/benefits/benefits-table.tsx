import { Badge, Button, Group } from "@mantine/core";
import { IconGift } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { Benefit, BenefitType } from "../../lib/v1";
import { formatDate } from "../billing/format";
import { SearchedListView, useSearchedListParams } from "../billing/list";
import { EditableName, RowDeleteButton } from "../billing/row-actions";
import { benefitsQuery } from "./queries";

export const BENEFIT_LABELS: Record<BenefitType, string> = {
  custom: "Custom note",
  discord: "Discord role",
  downloadables: "File downloads",
  github_repository: "GitHub repository access",
  license_keys: "License keys",
  meter_credit: "Meter credits",
};

/** The organization's benefits of `type` (every kind when undefined), searched by description from the address. */
export function BenefitsTable({
  organizationId,
  canWrite,
  type,
  onEdit,
  onDelete,
  onGrants,
}: {
  organizationId: string;
  canWrite: boolean;
  type: string | undefined;
  onEdit: (benefit: Benefit) => void;
  onDelete: (benefit: Benefit) => void;
  /** Shows who has the benefit (its grants). */
  onGrants: (benefit: Benefit) => void;
}) {
  const { query, params } = useSearchedListParams();
  const benefits = useQuery(benefitsQuery(organizationId, { ...params, type }));
  return (
    <SearchedListView
      searchPlaceholder="Description"
      query={benefits}
      label="benefits"
      caption="Benefits"
      empty={{
        icon: IconGift,
        title: query ? "No benefit matches" : type ? "No benefit of this kind" : "No benefits yet",
        children: query
          ? type
            ? "Change the search or the kind to see more."
            : "Change the search to see more."
          : canWrite
            ? "Create a benefit, then attach it to a product: buyers receive it when they pay."
            : "An owner or admin of this organization creates benefits.",
      }}
      columns={[
        {
          label: "Description",
          sort: "description",
          render: (b) => (
            <EditableName canWrite={canWrite} onEdit={() => onEdit(b)}>
              {b.description}
            </EditableName>
          ),
        },
        {
          label: "Kind",
          sort: "type",
          render: (b) => <Badge variant="light">{BENEFIT_LABELS[b.type]}</Badge>,
        },
        { label: "Created", sort: "created_at", render: (b) => formatDate(b.created_at) },
        {
          label: "Actions",
          render: (b) => (
            <Group gap="xs" wrap="nowrap">
              <Button
                size="xs"
                variant="subtle"
                onClick={() => onGrants(b)}
                aria-label={`Grants of ${b.description}`}
              >
                Grants
              </Button>
              <RowDeleteButton
                show={canWrite && b.deletable}
                label={`Delete ${b.description}`}
                onClick={() => onDelete(b)}
              />
            </Group>
          ),
        },
      ]}
    />
  );
}
