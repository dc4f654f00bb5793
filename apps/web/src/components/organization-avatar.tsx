import { Avatar, type AvatarProps } from "@mantine/core";

/**
 * An organization's initials, the same wherever it is shown (dashboard, checkout): the first
 * letters of its first two words, or the first two letters of a one-word name, upper-cased.
 */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const [first, second] = words;
  if (first === undefined) return "?";
  const letters =
    second === undefined ? Array.from(first).slice(0, 2) : [first, second].map((w) => Array.from(w)[0]);
  return letters.join("").toLocaleUpperCase();
}

/** The organization's logo, or its initials on a colour drawn from its name when it has none. */
export function OrganizationAvatar({
  name,
  src,
  ...props
}: { name: string; src: string | null | undefined } & Omit<
  AvatarProps,
  "name" | "src" | "children" | "color"
>) {
  return (
    <Avatar src={src ?? null} name={name} color="initials" alt="" {...props}>
      <span data-testid="organization-initials">{initialsOf(name)}</span>
    </Avatar>
  );
}
