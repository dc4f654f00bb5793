import { Alert, Button, Group, Popover, Stack, Text, TextInput } from "@mantine/core";
import { IconClockPlay, IconFlask } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { ServerError } from "../../lib/auth-client";
import { formatDateTime } from "../../lib/format";
import { serverErrorMessage } from "../../lib/server-errors";
import { useCurrentOrganization } from "../organization/viewer";
import { ADVANCE_STEPS, advanceSummary, toLocalInput } from "../subscriptions/lifecycle";
import { type TestClockAdvance, testClockQuery, useAdvanceTestClock } from "./queries";

/**
 * The sandbox's banner above an organization's pages: payments are simulated, the
 * organization's simulated date (its test clock), and "Advance time" (+1 day, +1 week,
 * +1 month, or to a date) which runs what falls due on the way (renewals, charges, dunning,
 * cancellations) and says what ran. Nothing shows on a live server (the clock answers 404).
 */
export function SandboxBanner() {
  const { organization, viewer } = useCurrentOrganization();
  const organizationId = organization?.id ?? "";
  const clock = useQuery(testClockQuery(organizationId));
  const advance = useAdvanceTestClock(organizationId);
  const [ran, setRan] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const [to, setTo] = useState("");
  if (!clock.data) return null;
  const now = new Date(clock.data.now);
  const canWrite = viewer?.can("billing", "write") ?? false;

  const run = async (body: TestClockAdvance) => {
    setError(null);
    setRan(null);
    try {
      const result = await advance.mutateAsync(body);
      setRan(`Advanced to ${formatDateTime(result.clock.now)}: ${advanceSummary(result.ran)}.`);
      setPicking(false);
    } catch (e) {
      setError(serverErrorMessage(e as ServerError));
    }
  };
  const toDate = () => {
    const at = new Date(to);
    if (Number.isNaN(at.getTime())) {
      setError("Choose a date and time.");
      return;
    }
    void run({ to: at.toISOString() });
  };

  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconFlask size={18} />}
      title="Sandbox: payments are simulated, no real money moves"
      mb="md"
      role="region"
      aria-label="Sandbox"
      data-testid="sandbox-banner"
    >
      <Stack gap="xs">
        <Group gap="xs" justify="space-between" wrap="wrap">
          <Text size="sm">
            Simulated date:{" "}
            <Text span fw={600} data-testid="simulated-date">
              {formatDateTime(now)}
            </Text>
            {clock.data.offset_seconds > 0 && (
              <Text span size="xs" c="dimmed">
                {" "}
                ({Math.round(clock.data.offset_seconds / 86_400)} days ahead of the real time)
              </Text>
            )}
          </Text>
          {canWrite && (
            <Group gap={6} wrap="wrap" role="group" aria-label="Advance time">
              <Text size="sm" fw={500}>
                Advance time:
              </Text>
              {ADVANCE_STEPS.map((step) => (
                <Button
                  key={step.by}
                  size="compact-sm"
                  variant="default"
                  disabled={advance.isPending}
                  onClick={() => void run({ by: step.by })}
                >
                  {step.label}
                </Button>
              ))}
              <Popover
                opened={picking}
                onChange={setPicking}
                position="bottom-end"
                withArrow
                trapFocus
                shadow="md"
              >
                <Popover.Target>
                  <Button
                    size="compact-sm"
                    variant="default"
                    disabled={advance.isPending}
                    onClick={() => {
                      setTo(toLocalInput(new Date(now.getTime() + 86_400_000)));
                      setPicking((o) => !o);
                    }}
                  >
                    To a date…
                  </Button>
                </Popover.Target>
                <Popover.Dropdown>
                  <Stack gap="xs">
                    <TextInput
                      type="datetime-local"
                      label="Advance to"
                      value={to}
                      min={toLocalInput(now)}
                      onChange={(e) => setTo(e.currentTarget.value)}
                    />
                    <Button size="xs" onClick={toDate} loading={advance.isPending}>
                      Advance
                    </Button>
                  </Stack>
                </Popover.Dropdown>
              </Popover>
            </Group>
          )}
        </Group>
        {advance.isPending && (
          <Group gap={6}>
            <IconClockPlay size={16} />
            <Text size="sm">Advancing time and running what falls due…</Text>
          </Group>
        )}
        {ran && (
          <Text size="sm" role="status" data-testid="advance-result">
            {ran}
          </Text>
        )}
        {error && (
          <Text size="sm" c="red" role="alert">
            {error}
          </Text>
        )}
      </Stack>
    </Alert>
  );
}
