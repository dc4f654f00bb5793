import { Client } from "./client.js";
import type { TestServer } from "./server.js";

let counter = 0;

export interface TestUser {
  client: Client;
  id: string;
  email: string;
  password: string;
  name: string;
}

/** A unique e-mail address for this run. */
export function uniqueEmail(prefix = "user"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.test`;
}

/**
 * Signs a user up through the API, marks the address verified in the database (the mail
 * flow itself is tested in its own suite) and signs in, returning a client with the session.
 */
export async function createUser(
  server: Pick<TestServer, "url" | "sql">,
  opts: { email?: string; password?: string; name?: string; username?: string } = {},
): Promise<TestUser> {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? "correct horse battery";
  const name = opts.name ?? email.split("@")[0]!;
  const client = new Client(server.url);
  const signUp = await client.post("/api/auth/sign-up/email", {
    email,
    password,
    name,
    ...(opts.username ? { username: opts.username } : {}),
  });
  if (signUp.status !== 200) throw new Error(`sign-up failed: ${signUp.status} ${signUp.text}`);
  await server.sql(`update "user" set "emailVerified" = true where email = $1`, email.toLowerCase());
  const signIn = await client.post("/api/auth/sign-in/email", { email, password });
  if (signIn.status !== 200) throw new Error(`sign-in failed: ${signIn.status} ${signIn.text}`);
  return { client, id: signIn.body.user.id, email: email.toLowerCase(), password, name };
}
