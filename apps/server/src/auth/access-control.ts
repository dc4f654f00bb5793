import { createAccessControl } from "better-auth/plugins/access";

/**
 * Organization roles, exactly as spec section 6. A member may hold several roles
 * separated by commas; Better Auth grants an action when any one of them allows it.
 * `billing` gates the billing API (`/v1`) for members signed in to the dashboard: owners and
 * admins read and write (products, prices, benefits, meters, settings, access tokens, ...),
 * members only read. Organization access tokens are gated by their scopes instead.
 */
export const organizationStatements = {
  organization: ["update", "delete"],
  billing: ["read", "write"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
} as const;

export const organizationAc = createAccessControl(organizationStatements);

export const organizationRoles = {
  owner: organizationAc.newRole({
    organization: ["update", "delete"],
    billing: ["read", "write"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
  }),
  admin: organizationAc.newRole({
    organization: ["update"],
    billing: ["read", "write"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
  }),
  member: organizationAc.newRole({
    organization: [],
    billing: ["read"],
    member: [],
    invitation: [],
    team: [],
  }),
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
