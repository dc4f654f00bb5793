import { Anchor, Group, Text } from "@mantine/core";
import { OrganizationAvatar } from "../../components/organization-avatar";
import type { CheckoutPublic } from "../api";

/** The seller: its avatar and name (also on the confirmation page). */
export function OrganizationHeader({ organization }: { organization: CheckoutPublic["organization"] }) {
  return (
    <Group gap="sm">
      <OrganizationAvatar src={organization.avatar_url} name={organization.name} radius="xl" size="md" />
      <Text fw={600} size="lg">
        {organization.name}
      </Text>
    </Group>
  );
}

/** The checkout page's top: the seller, and a way back to its site when it gave one. */
export function CheckoutHeader({ checkout }: { checkout: CheckoutPublic }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <OrganizationHeader organization={checkout.organization} />
      {checkout.return_url && (
        <Anchor href={checkout.return_url} size="sm" c="dimmed">
          ← Back
        </Anchor>
      )}
    </Group>
  );
}
