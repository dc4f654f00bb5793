import { viewerOf } from "../src/features/organization/viewer";
import type { FullOrganization, Member } from "../src/lib/organization";

const member = (id: string, name: string, role: string): Member => ({
  id: `member-${id}`,
  organizationId: "org-1",
  userId: `user-${id}`,
  role,
  createdAt: "2026-01-02T10:00:00Z",
  user: { id: `user-${id}`, name, email: `${id}@example.com`, image: null },
});

/** An organization with one owner (Olivia), one admin (Adam) and one member (Mia). */
export function organizationFixture(overrides: Partial<FullOrganization> = {}): FullOrganization {
  return {
    id: "org-1",
    name: "Acme",
    slug: "acme",
    logo: null,
    metadata: { plan: "gold" },
    createdAt: "2026-01-01T10:00:00Z",
    members: [
      member("olivia", "Olivia Owner", "owner"),
      member("adam", "Adam Admin", "admin"),
      member("mia", "Mia Member", "member"),
    ],
    invitations: [],
    teams: [{ id: "team-1", name: "Acme", organizationId: "org-1", createdAt: "2026-01-01T10:00:00Z" }],
    ...overrides,
  };
}

export const viewerAs = (who: "olivia" | "adam" | "mia", organization = organizationFixture()) =>
  viewerOf(organization, `user-${who}`);
