import { Alert, List, Text } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { formatDate } from "../../lib/format";
import { formatMoney } from "../billing/format";
import type { Dunning } from "./lifecycle";

/**
 * A past-due subscription: what is unpaid since when, the next attempt to charge the card on
 * file, and the retry schedule (+2, +5, +7, +7 days after the first failure, then it ends).
 */
export function PastDueBanner({ dunning }: { dunning: Dunning }) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={`Past due: ${formatMoney(dunning.amountDue, dunning.currency)} unpaid since ${formatDate(dunning.since)}`}
      data-testid="past-due-banner"
    >
      <Text size="sm">
        {dunning.nextAttempt ? `Next attempt on ${formatDate(dunning.nextAttempt)}.` : "Every retry has run."}{" "}
        The customer was mailed a link to update their card; a new card is charged at once. If every retry
        fails, the subscription is revoked on {formatDate(dunning.revokedAt)}.
      </Text>
      <List size="sm" mt="xs" aria-label="Retry schedule">
        {dunning.attempts.map((a, i) => (
          <List.Item key={a.at.toISOString()}>
            Retry {i + 1}: {formatDate(a.at)} (+{a.afterDays} days){a.done ? ", done" : ""}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
