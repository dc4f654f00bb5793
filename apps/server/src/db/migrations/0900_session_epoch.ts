import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // A user's session epoch: bumped, in the revoking transaction, by every change that can end
    // or change what a session cookie resolves to (auth/session-reader.ts caches that per
    // process): a session updated (refreshed, its active organization switched) or deleted
    // (sign-out, revocation, a password change revoking sessions, a ban, the user's deletion
    // by cascade), a membership added, changed (its role) or removed, an organization deleted,
    // a user changed or deleted. A cached resolution is used only while the epoch it was read
    // with still stands, read in the one statement each request makes anyway; triggers, so no
    // path of Better Auth's, of Kassa's or of a hand-written statement can forget it.
    await sql`create table kassa_session_epoch (
      user_id text primary key,
      epoch bigint not null
    )`.execute(db);
    await sql`create function kassa_session_bump(uid text) returns void language plpgsql as $fn$
      begin
        if uid is null then return; end if;
        insert into kassa_session_epoch (user_id, epoch) values (uid, 1)
          on conflict (user_id) do update set epoch = kassa_session_epoch.epoch + 1;
      end $fn$`.execute(db);
    // Sessions and memberships: the row's user (both users when it moved to another).
    await sql`create function kassa_session_user_row_changed() returns trigger language plpgsql as $fn$
      begin
        if tg_op = 'INSERT' then
          perform kassa_session_bump(new."userId");
        elsif tg_op = 'DELETE' then
          perform kassa_session_bump(old."userId");
        else
          perform kassa_session_bump(old."userId");
          if new."userId" is distinct from old."userId" then
            perform kassa_session_bump(new."userId");
          end if;
        end if;
        return null;
      end $fn$`.execute(db);
    // A new session changes nothing cached (it has its own token): updates and deletes only.
    await sql`create trigger session_epoch after update or delete on "session"
      for each row execute function kassa_session_user_row_changed()`.execute(db);
    // A new membership too: a cached "not a member" answer must go.
    await sql`create trigger member_epoch after insert or update or delete on "member"
      for each row execute function kassa_session_user_row_changed()`.execute(db);
    await sql`create function kassa_session_user_changed() returns trigger language plpgsql as $fn$
      begin
        perform kassa_session_bump(old.id);
        return null;
      end $fn$`.execute(db);
    await sql`create trigger user_epoch after update or delete on "user"
      for each row execute function kassa_session_user_changed()`.execute(db);
    // Before the delete, while the members are still there (their rows may go by cascade).
    await sql`create function kassa_session_organization_deleted() returns trigger language plpgsql as $fn$
      begin
        perform kassa_session_bump(m."userId") from "member" m where m."organizationId" = old.id;
        return old;
      end $fn$`.execute(db);
    await sql`create trigger organization_epoch before delete on "organization"
      for each row execute function kassa_session_organization_deleted()`.execute(db);
  },
};
