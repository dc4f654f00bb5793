import { Badge } from "@mantine/core";
import type { LicenseKey, LicenseKeyStatus } from "./queries";

export const LICENSE_KEY_STATUS_LABELS: Record<LicenseKeyStatus, string> = {
  granted: "Granted",
  disabled: "Disabled",
  revoked: "Revoked",
};

const COLORS: Record<LicenseKeyStatus, string> = { granted: "green", disabled: "yellow", revoked: "red" };

export const isLicenseKeyStatus = (s: unknown): s is LicenseKeyStatus =>
  typeof s === "string" && Object.hasOwn(LICENSE_KEY_STATUS_LABELS, s);

/** A key's status as a coloured badge, in words. */
export function LicenseKeyStatusBadge({ status }: { status: LicenseKeyStatus }) {
  return (
    <Badge component="span" variant="light" color={COLORS[status] ?? "gray"}>
      {LICENSE_KEY_STATUS_LABELS[status] ?? status}
    </Badge>
  );
}

/** "12 / 100", or "12 / no limit". */
export const usageText = (k: Pick<LicenseKey, "usage" | "limit_usage">) =>
  `${k.usage} / ${k.limit_usage ?? "no limit"}`;

/**
 * The status changes offered from a status, with the words of their confirmation. A disabled
 * or revoked key can be granted again. A revoke takes the customer's benefit grant back too, and
 * renewals do not give it again until the key is re-enabled.
 */
export interface StatusChange {
  to: LicenseKeyStatus;
  /** The button's label. */
  action: string;
  title: string;
  confirmLabel: string;
  explanation: string;
}

const DISABLE: StatusChange = {
  to: "disabled",
  action: "Disable",
  title: "Disable this license key?",
  confirmLabel: "Disable key",
  explanation:
    "Validations and activations of the key are refused until you re-enable it. Its activations and usage are kept.",
};
const REVOKE: StatusChange = {
  to: "revoked",
  action: "Revoke",
  title: "Revoke this license key?",
  confirmLabel: "Revoke key",
  explanation:
    "The key stops working and the customer loses the benefit it came with. Renewals do not bring it back; re-enabling the key does.",
};
const ENABLE: StatusChange = {
  to: "granted",
  action: "Re-enable",
  title: "Re-enable this license key?",
  confirmLabel: "Re-enable key",
  explanation: "The key validates and activates again, within its limits and expiry.",
};

export function statusChanges(status: LicenseKeyStatus): StatusChange[] {
  if (status === "granted") return [DISABLE, REVOKE];
  if (status === "disabled") return [ENABLE, REVOKE];
  return [ENABLE];
}
