import { Alert, Group, Stack, Text, TextInput } from "@mantine/core";

export interface CardValues {
  number: string;
  expiry: string;
  cvc: string;
}

export const EMPTY_CARD: CardValues = { number: "", expiry: "", cvc: "" };

/** The card number in groups of four as it is typed ("4242 4242 4242 4242"). */
export function formatCardNumber(text: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 19);
  return digits.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** "1234" -> "12 / 34" as it is typed; a deletion is left alone. */
export function formatExpiry(text: string, previous: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 4);
  if (text.length < previous.length) return text;
  if (digits.length >= 2) return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
  return digits;
}

/** MM/YY (or MM/YYYY) to a month and a four-digit year, or null. */
export function parseExpiry(text: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** What a card form checks before asking the server (which checks again). */
export function cardProblems(card: CardValues, now = new Date()): Record<string, string> {
  const errors: Record<string, string> = {};
  const digits = card.number.replace(/\D/g, "");
  if (digits === "") errors.card_number = "Enter your card number.";
  else if (digits.length < 12 || digits.length > 19) errors.card_number = "Your card number is incomplete.";
  const expiry = parseExpiry(card.expiry);
  if (card.expiry.trim() === "") errors.expiry = "Enter the expiry date (MM / YY).";
  else if (!expiry) errors.expiry = "The expiry date reads MM / YY, e.g. 12 / 30.";
  else if (
    expiry.year < now.getFullYear() ||
    (expiry.year === now.getFullYear() && expiry.month < now.getMonth() + 1)
  )
    errors.expiry = "Your card's expiry date is in the past.";
  if (card.cvc.trim() === "") errors.cvc = "Enter the security code.";
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) errors.cvc = "The security code is 3 or 4 digits.";
  return errors;
}

export const TEST_CARDS = [
  { number: "4242 4242 4242 4242", outcome: "succeeds" },
  { number: "4000 0000 0000 0002", outcome: "is declined" },
  { number: "4000 0000 0000 9995", outcome: "has insufficient funds" },
];

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
