import Bowser from "bowser";

/** "Chrome 131 on Linux", from a session's user agent; "Unknown device" without one. */
export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split(".")[0]].filter(Boolean).join(" ");
  const os = [parsed.os.name, parsed.os.versionName].filter(Boolean).join(" ");
  if (!browser && !os) return userAgent.slice(0, 60);
  return os ? `${browser || "Browser"} on ${os}` : browser;
}

/** Whether the user agent is a phone or tablet (for the device icon). */
export function isMobileDevice(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  const type = Bowser.parse(userAgent).platform.type;
  return type === "mobile" || type === "tablet";
}
