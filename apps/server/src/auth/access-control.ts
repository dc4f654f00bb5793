import { organizationRoleGrants, organizationStatements } from "@kassa/contracts/organization";
import { createAccessControl } from "better-auth/plugins/access";

/**
 * Organization roles, exactly as spec section 6, from the permission table the web app also
 * reads (`@kassa/contracts`), so the pages offer what the server allows. A member may hold
 * several roles separated by commas; Better Auth grants an action when any one of them
 * allows it. `billing` gates the billing API (`/v1`) for members signed in to the dashboard:
 * owners and admins read and write, members only read. Organization access tokens are gated
 * by their scopes instead.
 */
export { organizationStatements };

export const organizationAc = createAccessControl(organizationStatements);

type RoleStatements = Parameters<typeof organizationAc.newRole>[0];

/** A role's grants from the shared table, as Better Auth's access control takes them. */
const role = (name: keyof typeof organizationRoleGrants) =>
  organizationAc.newRole(
    Object.fromEntries(
      Object.entries(organizationRoleGrants[name]).map(([resource, actions]) => [resource, [...actions]]),
    ) as RoleStatements,
  );

export const organizationRoles = {
  owner: role("owner"),
  admin: role("admin"),
  member: role("member"),
};

/**
 * Platform administration (the admin plugin). Spec section 6 names the user and session
 * permissions; `get` and `update` are Better Auth 1.7 permissions its admin endpoints need
 * to read and edit one user, so the admin role has them too. The `user` role has none.
 */
export const adminStatements = {
  user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
  session: ["list", "revoke", "delete"],
} as const;

export const adminAc = createAccessControl(adminStatements);

export const adminRoles = {
  admin: adminAc.newRole({
    user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
    session: ["list", "revoke", "delete"],
  }),
  user: adminAc.newRole({ user: [], session: [] }),
};
