import { type OrganizationRole, parseRoles, roleLabels } from "@kassa/contracts/organization";

/** "admin,member" as people read it: "Admin, Member". */
export const roleNames = (roles: string | readonly string[]) =>
  parseRoles(roles)
    .map((r) => roleLabels[r as OrganizationRole] ?? r)
    .join(", ");
