import { Anchor, Badge, Button, Group, Text, TextInput } from "@mantine/core";
import type { CheckoutPublic } from "../api";
import { discountLabel } from "../format";

/** The discount code to apply, or the applied discount (removable when it came by a code). */
export function DiscountField({
  checkout,
  code,
  error,
  pending,
  disabled,
  onCode,
  onApply,
  onRemove,
}: {
  checkout: CheckoutPublic;
  code: string;
  error: string | undefined;
  pending: boolean;
  disabled: boolean;
  onCode: (code: string) => void;
  onApply: () => void;
  onRemove: () => void;
}) {
  if (checkout.discount)
    return (
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs">
          <Badge variant="light" color="teal" size="lg" tt="none" data-testid="applied-discount">
            {checkout.discount.code ?? checkout.discount.name}
          </Badge>
          <Text size="sm" c="dimmed">
            {discountLabel(checkout)}
          </Text>
        </Group>
        {checkout.discount.code && (
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={onRemove}
            disabled={pending || disabled}
          >
            Remove
          </Anchor>
        )}
      </Group>
    );
  return (
    <Group align="flex-start" gap="xs" wrap="nowrap">
      <TextInput
        label="Discount code"
        name="discount_code"
        autoComplete="off"
        style={{ flex: 1 }}
        value={code}
        error={error}
        disabled={disabled}
        onChange={(e) => onCode(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            onApply();
          }
        }}
      />
      <Button variant="default" mt={25} onClick={onApply} loading={pending} disabled={disabled}>
        Apply
      </Button>
    </Group>
  );
}
