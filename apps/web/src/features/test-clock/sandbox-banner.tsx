import { Alert, Button, Group, Popover, Progress, Stack, Text, TextInput } from "@mantine/core";
import { IconClockPlay, IconFlask } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { ServerError } from "../../lib/auth-client";
import { formatDateTime } from "../../lib/format";
import { serverErrorMessage } from "../../lib/server-errors";
import { useCurrentOrganization } from "../organization/viewer";
import { ADVANCE_STEPS, advanceSummary, toLocalInput } from "../subscriptions/lifecycle";
import {
  type TestClockAdvance,
  testClockQuery,
  useAdvanceTestClock,
  useRefreshAfterAdvance,
} from "./queries";

/**
 * The sandbox's banner above an organization's pages: payments are simulated, the
 * organization's simulated date (its test clock), and "Advance time" (+1 day, +1 week,
 * +1 month, or to a date) which runs what falls due on the way (renewals, charges, dunning,
 * cancellations). The advance runs on the server without holding the request: the banner
 * follows its progress (where the simulated time has got to, what ran so far) until the clock
 * is ready, then says what ran and refreshes the pages' data. An advance under way when the
 * page opens (another tab, the API) is followed the same way. Nothing shows on a live server
 * (the clock answers 404).
 */
export function SandboxBanner() {
  const { organization, viewer } = useCurrentOrganization();
  const organizationId = organization?.id ?? "";
  const clock = useQuery(testClockQuery(organizationId));
  const advance = useAdvanceTestClock(organizationId);
  const refresh = useRefreshAfterAdvance(organizationId);
  const [ran, setRan] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const [to, setTo] = useState("");
  // The advance being followed: when the clock stops advancing, say how it ended and refresh.
  const following = useRef<string | null>(null);
  const status = clock.data?.status;
  const last = clock.data?.advance;
  useEffect(() => {
    if (!last) return;
    if (status === "advancing") {
      following.current = last.id;
      return;
    }
    if (following.current !== last.id) return;
    following.current = null;
    if (status === "failed")
      setError(
        `The advance stopped at ${formatDateTime(clock.data?.now ?? last.target)}: ${last.error ?? "unknown error"}. Advance again to go on.`,
      );
    else setRan(`Advanced to ${formatDateTime(last.target)}: ${advanceSummary(last.ran)}.`);
    void refresh();
  }, [status, last, clock.data?.now, refresh]);
  if (!clock.data) return null;
  const now = new Date(clock.data.now);
  const canWrite = viewer?.can("billing", "write") ?? false;
  const advancing = clock.data.status === "advancing" ? clock.data.advance : null;
  const busy = advance.isPending || advancing !== null;

  const run = async (body: TestClockAdvance) => {
    setError(null);
    setRan(null);
    try {
      await advance.mutateAsync(body);
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
                  disabled={busy}
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
                    disabled={busy}
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
                    <Button size="xs" onClick={toDate} loading={busy}>
                      Advance
                    </Button>
                  </Stack>
                </Popover.Dropdown>
              </Popover>
            </Group>
          )}
        </Group>
        {advance.isPending && !advancing && (
          <Group gap={6}>
            <IconClockPlay size={16} />
            <Text size="sm">Advancing time and running what falls due…</Text>
          </Group>
        )}
        {advancing && (
          <Stack gap={4} data-testid="advance-progress">
            <Group gap={6}>
              <IconClockPlay size={16} />
              <Text size="sm">
                Advancing to {formatDateTime(advancing.target)}: the simulated time is at{" "}
                {formatDateTime(now)}
                {advancing.ran.renewals > 0 || advancing.ran.charges > 0
                  ? ` (so far: ${advanceSummary(advancing.ran)})`
                  : ""}
                …
              </Text>
            </Group>
            <Progress
              value={Math.round(advancing.progress * 100)}
              size="sm"
              aria-label="Advance progress"
              animated
            />
          </Stack>
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
