import { Alert, Group, Stack, Text, TextInput } from "@mantine/core";
import { type CardValues, formatCardNumber, formatExpiry, TEST_CARDS } from "./card";

export function SandboxCardHint() {
  return (
    <Alert color="yellow" variant="light" title="Sandbox: no real money moves" data-testid="sandbox-hint">
      <Text size="sm">Use a test card with any future expiry date and any 3-digit code:</Text>
      <Stack gap={2} mt={4}>
        {TEST_CARDS.map((c) => (
          <Text size="sm" key={c.number}>
            <Text span ff="monospace" fw={600}>
              {c.number}
            </Text>{" "}
            {c.outcome}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

/** The sandbox's card fields; the page turns them into a confirmation token on submit. */
export function SandboxCardForm({
  value,
  onChange,
  errors,
  disabled,
}: {
  value: CardValues;
  onChange: (next: CardValues) => void;
  errors: Record<string, string | undefined>;
  disabled?: boolean;
}) {
  return (
    <Stack gap="xs">
      <TextInput
        label="Card number"
        withAsterisk
        name="card_number"
        inputMode="numeric"
        autoComplete="cc-number"
        placeholder="1234 1234 1234 1234"
        value={value.number}
        disabled={disabled}
        error={errors.card_number}
        onChange={(e) => onChange({ ...value, number: formatCardNumber(e.currentTarget.value) })}
      />
      <Group grow align="flex-start">
        <TextInput
          label="Expiry date"
          withAsterisk
          name="expiry"
          inputMode="numeric"
          autoComplete="cc-exp"
          placeholder="MM / YY"
          value={value.expiry}
          disabled={disabled}
          error={errors.expiry}
          onChange={(e) => onChange({ ...value, expiry: formatExpiry(e.currentTarget.value, value.expiry) })}
        />
        <TextInput
          label="Security code"
          withAsterisk
          name="cvc"
          inputMode="numeric"
          autoComplete="cc-csc"
          placeholder="CVC"
          maxLength={4}
          value={value.cvc}
          disabled={disabled}
          error={errors.cvc}
          onChange={(e) => onChange({ ...value, cvc: e.currentTarget.value.replace(/\D/g, "") })}
        />
      </Group>
    </Stack>
  );
}
