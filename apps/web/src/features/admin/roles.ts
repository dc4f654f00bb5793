/** Whether a user holds the platform admin role (roles may be comma-separated). */
export function isPlatformAdmin(user: { role?: string | null | undefined } | null | undefined): boolean {
  return (user?.role ?? "")
    .split(",")
    .map((r) => r.trim())
    .includes("admin");
}
