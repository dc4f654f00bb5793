import { z } from "zod/mini";

/**
 * Organization roles and what each may do: the permission table of spec section 6, in one
 * place for the server (which builds Better Auth's access control from it and refuses
 * anyway) and the web app (which offers only what the viewer's roles allow).
 */
export const organizationStatements = {
  organization: ["update", "delete"],
  /** The billing API (`/v1`) for members signed in to the dashboard; tokens use scopes. */
  billing: ["read", "write"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
} as const;

export type OrganizationResource = keyof typeof organizationStatements;
export type OrganizationAction<R extends OrganizationResource = OrganizationResource> =
  (typeof organizationStatements)[R][number];
export type OrganizationGrants = { [R in OrganizationResource]: readonly OrganizationAction<R>[] };

export const ORGANIZATION_ROLES = ["owner", "admin", "member"] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

export const organizationRoleGrants: Record<OrganizationRole, OrganizationGrants> = {
  owner: {
    organization: ["update", "delete"],
    billing: ["read", "write"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
  },
  admin: {
    organization: ["update"],
    billing: ["read", "write"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
  },
  member: { organization: [], billing: ["read"], member: [], invitation: [], team: [] },
};

export const roleLabels: Record<OrganizationRole, string> = {
  owner: "Owner",
  admin: "Admin",
  member: "Member",
};

/** A member's roles: several may be stored comma-separated ("admin,member"). */
export function parseRoles(roles: string | readonly string[] | null | undefined): string[] {
  const list = typeof roles === "string" ? roles.split(",") : (roles ?? []);
  return list.map((r) => r.trim()).filter(Boolean);
}

/** Whether any one of the roles grants `action` on `resource` (spec section 6). */
export function rolesCan<R extends OrganizationResource>(
  roles: string | readonly string[] | null | undefined,
  resource: R,
  action: OrganizationAction<R>,
): boolean {
  return parseRoles(roles).some((name) => {
    const grants = organizationRoleGrants[name as OrganizationRole] as OrganizationGrants | undefined;
    return (grants?.[resource] as readonly string[] | undefined)?.includes(action) === true;
  });
}

/** The owner rule of spec section 5: a sole owner cannot be removed and cannot leave. */
export function isSoleOwner(
  member: { id: string; role: string },
  members: readonly { id: string; role: string }[],
): boolean {
  const owners = members.filter((m) => parseRoles(m.role).includes("owner"));
  return owners.length === 1 && owners[0]?.id === member.id;
}

// --- forms -------------------------------------------------------------------------------

/** Lower-case letters, digits and single hyphens between them: what appears in `/dashboard/{slug}`. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 48;

/** A slug derived from a name: "Ada's Shop GmbH" -> "adas-shop-gmbh". */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/g, "");
}

const organizationName = z
  .string()
  .check(z.trim(), z.minLength(1, "Enter a name."), z.maxLength(100, "Use at most 100 characters."));

/** Words the dashboard uses as its own paths (`/dashboard/new`, ...): not available as slugs. */
export const RESERVED_SLUGS: readonly string[] = ["new", "account", "admin", "settings", "api-keys"];

export const slugSchema = z.string().check(
  z.minLength(1, "Enter a slug."),
  z.maxLength(SLUG_MAX_LENGTH, `Use at most ${SLUG_MAX_LENGTH} characters.`),
  z.regex(SLUG_PATTERN, "Use lower-case letters, digits and single hyphens (e.g. my-shop)."),
  z.refine((slug) => !RESERVED_SLUGS.includes(slug), "This word is reserved. Choose another slug."),
);

export const createOrganizationSchema = z.object({ name: organizationName, slug: slugSchema });
export type CreateOrganizationValues = z.infer<typeof createOrganizationSchema>;

/** Empty (no logo), or an absolute http(s) address. */
export function isImageAddress(value: string): boolean {
  if (value === "") return true;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const metadataRow = z.object({
  key: z.string().check(z.trim(), z.maxLength(40, "Use at most 40 characters.")),
  value: z.string().check(z.maxLength(500, "Use at most 500 characters.")),
});

export const organizationSettingsSchema = z
  .object({
    name: organizationName,
    slug: slugSchema,
    /** An https (or http) address of an image; empty for none. */
    logo: z.string().check(z.refine(isImageAddress, "Enter an http or https address of an image.")),
    metadata: z.array(metadataRow),
  })
  .check(
    z.superRefine((values, ctx) => {
      const seen = new Set<string>();
      values.metadata.forEach((row, i) => {
        if (row.key === "" && row.value !== "")
          ctx.issues.push({
            code: "custom",
            message: "Enter a key.",
            path: ["metadata", i, "key"],
            input: row,
          });
        if (row.key !== "" && seen.has(row.key))
          ctx.issues.push({
            code: "custom",
            message: "This key is already used.",
            path: ["metadata", i, "key"],
            input: row,
          });
        seen.add(row.key);
      });
    }),
  );
export type OrganizationSettingsValues = z.infer<typeof organizationSettingsSchema>;

/** Metadata rows (empty keys dropped) as the object the server stores. */
export function metadataFromRows(rows: readonly { key: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.key.trim() !== "").map((r) => [r.key.trim(), r.value]));
}

/** The object the server answers as rows for the form (non-string values shown as JSON). */
export function rowsFromMetadata(metadata: unknown): { key: string; value: string }[] {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return [];
  return Object.entries(metadata as Record<string, unknown>).map(([key, value]) => ({
    key,
    value: typeof value === "string" ? value : JSON.stringify(value),
  }));
}

const roleSchema = z.enum(ORGANIZATION_ROLES);

export const memberRolesSchema = z.object({
  roles: z.array(roleSchema).check(z.minLength(1, "Choose at least one role.")),
});
export type MemberRolesValues = z.infer<typeof memberRolesSchema>;

export const inviteMemberSchema = z.object({
  email: z.email("Enter a valid e-mail address."),
  role: roleSchema,
  /** Empty for no team. */
  teamId: z.string(),
});
export type InviteMemberValues = z.infer<typeof inviteMemberSchema>;

export const teamSchema = z.object({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, "Enter a team name."), z.maxLength(100, "Use at most 100 characters.")),
});
export type TeamValues = z.infer<typeof teamSchema>;

/** Deleting an organization: the person types its slug to confirm. */
export function deleteOrganizationSchema(slug: string) {
  return z.object({
    confirm: z.string().check(z.refine((v) => v.trim() === slug, `Type ${slug} to confirm.`)),
  });
}
export type DeleteOrganizationValues = z.infer<ReturnType<typeof deleteOrganizationSchema>>;
